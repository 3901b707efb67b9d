/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The elements of one fetch, grouped by split (order within a split is kept). */
@Internal
final class VitessRecords<T> implements RecordsWithSplitIds<SplitElement<T>> {

    private final Map<String, ArrayDeque<SplitElement<T>>> bySplit = new LinkedHashMap<>();
    private final Set<String> finished = new LinkedHashSet<>();
    private Iterator<Map.Entry<String, ArrayDeque<SplitElement<T>>>> splits;
    private ArrayDeque<SplitElement<T>> current;

    /**
     * Most changes in one {@link SplitElement.Changes}: a checkpoint falls between elements, so
     * runs stay short enough for one to fall inside a large transaction soon (a stop with
     * savepoint waits for the element being emitted), while Flink's per-element work is shared by
     * this many changes.
     */
    static final int MAX_CHANGES_PER_ELEMENT = 64;

    /**
     * Appends {@code element} to its split's elements; a change right after another change (or a
     * run of them, up to {@link #MAX_CHANGES_PER_ELEMENT}) joins it as one
     * {@link SplitElement.Changes}, in order.
     */
    void add(String splitId, SplitElement<T> element) {
        ArrayDeque<SplitElement<T>> elements = bySplit.computeIfAbsent(splitId, k -> new ArrayDeque<>());
        if (element instanceof SplitElement.Change) {
            SplitElement.Change<T> change = (SplitElement.Change<T>) element;
            SplitElement<T> last = elements.peekLast();
            if (last instanceof SplitElement.Changes) {
                List<SplitElement.Change<T>> run = ((SplitElement.Changes<T>) last).changes;
                if (run.size() < MAX_CHANGES_PER_ELEMENT) {
                    run.add(change);
                    return;
                }
                elements.add(element); // a full run: this change starts the next element
                return;
            }
            if (last instanceof SplitElement.Change) {
                elements.pollLast();
                elements.add(new SplitElement.Changes<>((SplitElement.Change<T>) last, change));
                return;
            }
        }
        elements.add(element);
    }

    void finish(String splitId) {
        finished.add(splitId);
    }

    boolean isEmpty() {
        return bySplit.isEmpty() && finished.isEmpty();
    }

    @Override
    public String nextSplit() {
        if (splits == null) {
            splits = bySplit.entrySet().iterator();
        }
        if (!splits.hasNext()) {
            current = null;
            return null;
        }
        Map.Entry<String, ArrayDeque<SplitElement<T>>> next = splits.next();
        current = next.getValue();
        return next.getKey();
    }

    @Override
    public SplitElement<T> nextRecordFromSplit() {
        return current == null ? null : current.poll();
    }

    @Override
    public Set<String> finishedSplits() {
        return Collections.unmodifiableSet(finished);
    }
}
