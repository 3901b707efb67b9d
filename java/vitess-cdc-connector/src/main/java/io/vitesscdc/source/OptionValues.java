/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import org.apache.flink.annotation.Internal;

import java.util.Locale;

/**
 * The enums whose constants are option values ({@link AuthMode}, {@link BadRecordHandling},
 * {@link DestructiveDdl}, {@link InitialSnapshot}): a constant's option value, in SQL and in the
 * native options alike, is its name in lower case.
 */
@Internal
public final class OptionValues {

    private OptionValues() {}

    /** The option value of {@code constant}: its name in lower case. */
    public static String of(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    /** The constant of {@code type} whose option value is {@code value} (any case), or null. */
    public static <E extends Enum<E>> E find(Class<E> type, String value) {
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        for (E constant : type.getEnumConstants()) {
            if (of(constant).equals(wanted)) {
                return constant;
            }
        }
        return null;
    }
}
