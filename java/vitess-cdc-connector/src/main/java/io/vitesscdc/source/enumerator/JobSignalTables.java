/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import org.apache.flink.annotation.Internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The tables that the sources of one job read, per signal table they share. A job has a source
 * per SQL table (and any number of DataStream sources); a signal names tables of several of them.
 * A stream cannot tell a table another source reads from a typo, so each reader reports the
 * tables its source does not read, and the enumerators, which all run in the JobManager, tell
 * here which of them no source of the job reads; the first to ask about a signal reports it, so
 * a signal is reported once, however many sources, readers and shards read it.
 */
@Internal
public final class JobSignalTables {

    /** Signals remembered as reported, per channel. */
    private static final int REMEMBERED = 1024;

    private static final Map<String, Channel> CHANNELS = new ConcurrentHashMap<>();

    private JobSignalTables() {}

    /**
     * A source of job {@code job} that reads signals from {@code signalTable} of {@code keyspace}
     * at {@code address}, selecting {@code tables} by name and {@code patterns} by regular
     * expression (neither: every table). It counts among the job's sources once {@link
     * Member#join() joined}.
     */
    public static Member member(
            String job,
            String address,
            String keyspace,
            String signalTable,
            List<String> tables,
            List<String> patterns) {
        String channel = String.join("\u0000", job, address, keyspace, signalTable);
        return new Member(channel, tables, patterns);
    }

    /** One source's selection in its job's channel. */
    public static final class Member {
        private final String channel;
        private final Set<String> names;
        private final List<Pattern> patterns = new ArrayList<>();
        /**
         * A pattern Java's regular expressions cannot read (the core's dialect is Rust's): what
         * it matches is unknown here, so this source is taken to read every table rather than
         * have a table it reads reported as read by none.
         */
        private final boolean unknownSelection;

        private Member(String channel, List<String> names, List<String> patterns) {
            this.channel = channel;
            this.names = Set.copyOf(names);
            boolean unknown = false;
            for (String p : patterns) {
                try {
                    this.patterns.add(Pattern.compile(p));
                } catch (PatternSyntaxException notJava) {
                    unknown = true;
                }
            }
            this.unknownSelection = unknown;
        }

        /** Counts this source among the job's (when its enumerator starts). */
        public void join() {
            CHANNELS.computeIfAbsent(channel, c -> new Channel()).members.add(this);
        }

        /** No longer (when its enumerator closes). */
        public void leave() {
            CHANNELS.computeIfPresent(channel, (c, ch) -> {
                ch.members.remove(this);
                return ch.members.isEmpty() ? null : ch;
            });
        }

        /** Those of {@code tables} that no source of the job reads. */
        public List<String> readByNone(List<String> tables) {
            Channel ch = CHANNELS.get(channel);
            List<String> none = new ArrayList<>();
            for (String t : tables) {
                if (ch == null ? !reads(t) : ch.members.stream().noneMatch(m -> m.reads(t))) {
                    none.add(t);
                }
            }
            return none;
        }

        /** Whether this is the first time a source of the job asks to report signal {@code id}. */
        public boolean firstReport(String id) {
            Channel ch = CHANNELS.get(channel);
            if (ch == null) {
                // Every source of the job has closed: nobody else can report it.
                return true;
            }
            synchronized (ch.reported) {
                return ch.reported.put(id, Boolean.TRUE) == null;
            }
        }

        /** What this source selects, as a log line names it. */
        public String selection() {
            if (names.isEmpty() && patterns.isEmpty()) {
                return "every table";
            }
            List<String> all = new ArrayList<>(new java.util.TreeSet<>(names));
            patterns.forEach(p -> all.add("/" + p.pattern() + "/"));
            return String.join(", ", all);
        }

        /** The selections of the job's sources in this channel. */
        public String jobSelection() {
            Channel ch = CHANNELS.get(channel);
            if (ch == null) {
                return selection();
            }
            return String.join(
                    "; ", ch.members.stream().map(Member::selection).sorted().toList());
        }

        private boolean reads(String table) {
            if (unknownSelection || (names.isEmpty() && patterns.isEmpty())) {
                return true;
            }
            return names.contains(table)
                    || patterns.stream().anyMatch(p -> p.matcher(table).matches());
        }
    }

    private static final class Channel {
        final Set<Member> members = ConcurrentHashMap.newKeySet();
        final Map<String, Boolean> reported = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > REMEMBERED;
            }
        };
    }
}
