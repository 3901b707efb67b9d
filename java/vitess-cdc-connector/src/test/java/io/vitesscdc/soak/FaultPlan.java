/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The faults of one soak, drawn from its seed before it starts: when each begins (gaps drawn
 * around {@code meanGapSeconds}), its kind (by {@link Fault#weight}) and a number that picks its
 * target among the shards of the layout at that moment and its duration. The same seed and length
 * give the same plan, printed at the start, so that {@code --seed N} replays it.
 */
record FaultPlan(long seed, List<Planned> faults) {

    /** One fault of the plan: {@code atSeconds} after the writes began. */
    record Planned(int index, double atSeconds, Fault kind, int pick) {
        @Override
        public String toString() {
            return String.format("#%d at %.1fs %s (pick %d)", index, atSeconds, kind, pick);
        }
    }

    static FaultPlan draw(long seed, double seconds, double meanGapSeconds) {
        Random random = new Random(seed);
        int totalWeight = 0;
        for (Fault f : Fault.values()) {
            totalWeight += f.weight;
        }
        List<Planned> out = new ArrayList<>();
        // The first fault falls into the initial copy.
        double at = 2 + random.nextDouble() * 5;
        while (at < seconds) {
            int roll = random.nextInt(totalWeight);
            Fault kind = null;
            for (Fault f : Fault.values()) {
                roll -= f.weight;
                if (roll < 0) {
                    kind = f;
                    break;
                }
            }
            out.add(new Planned(out.size(), at, kind, random.nextInt(1 << 20)));
            // Exponential gaps: faults cluster and overlap now and then, as they do in production.
            at += -Math.log(1 - random.nextDouble()) * meanGapSeconds;
        }
        return new FaultPlan(seed, List.copyOf(out));
    }

    String describe() {
        StringBuilder sb = new StringBuilder("fault plan of seed " + seed + " (" + faults.size() + " faults):\n");
        for (Planned p : faults) {
            sb.append("  ").append(p).append('\n');
        }
        return sb.toString();
    }
}
