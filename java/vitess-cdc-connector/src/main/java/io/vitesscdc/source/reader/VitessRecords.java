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
     * Most change records in one element (a {@link SplitElement.Changes}, or a change that joined
     * a run of records): a checkpoint falls between elements, so runs stay short enough for one
     * to fall inside a large transaction soon (a stop with savepoint waits for the element being
     * emitted), while Flink's per-element work is shared by this many records. A single change
     * of more records (a copy batch's, an update's) is never cut.
     */
    static final int MAX_RECORDS_PER_ELEMENT = 64;

    /**
     * Appends {@code element} to its split's elements; a change right after another change (or a
     * run of them, up to {@link #MAX_RECORDS_PER_ELEMENT} records) joins it as one
     * {@link SplitElement.Changes}, in order.
     */
    void add(String splitId, SplitElement<T> element) {
        ArrayDeque<SplitElement<T>> elements = bySplit.computeIfAbsent(splitId, k -> new ArrayDeque<>());
        if (element instanceof SplitElement.Change) {
            SplitElement.Change<T> change = (SplitElement.Change<T>) element;
            SplitElement<T> last = elements.peekLast();
            if (last instanceof SplitElement.Changes) {
                SplitElement.Changes<T> run = (SplitElement.Changes<T>) last;
                if (run.records + change.records <= MAX_RECORDS_PER_ELEMENT) {
                    run.add(change);
                    return;
                }
                elements.add(element); // a full run: this change starts the next element
                return;
            }
            if (last instanceof SplitElement.Change
                    && ((SplitElement.Change<T>) last).records + change.records <= MAX_RECORDS_PER_ELEMENT) {
                elements.pollLast();
                elements.add(new SplitElement.Changes<>((SplitElement.Change<T>) last, change));
                return;
            }
        }
        elements.add(element);
    }

    /**
     * Joins one more plain record to the change that ends {@code splitId}'s elements, when that
     * change takes it ({@link SplitElement.Change#joins}) and its element has room: returns the
     * change, its count already grown, or null (the record makes a change of its own).
     */
    SplitElement.Change<T> joinRecord(String splitId, boolean snapshot, long commitTimestampMillis) {
        ArrayDeque<SplitElement<T>> elements = bySplit.get(splitId);
        SplitElement<T> last = elements == null ? null : elements.peekLast();
        if (last instanceof SplitElement.Change) {
            SplitElement.Change<T> change = (SplitElement.Change<T>) last;
            if (change.joins(snapshot, commitTimestampMillis)) {
                change.records++;
                return change;
            }
        } else if (last instanceof SplitElement.Changes) {
            SplitElement.Changes<T> run = (SplitElement.Changes<T>) last;
            SplitElement.Change<T> change = run.changes.get(run.changes.size() - 1);
            if (run.records < MAX_RECORDS_PER_ELEMENT && change.joins(snapshot, commitTimestampMillis)) {
                change.records++;
                run.records++;
                return change;
            }
        }
        return null;
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
