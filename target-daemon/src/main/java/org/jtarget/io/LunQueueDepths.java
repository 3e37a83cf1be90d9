package org.jtarget.io;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@link LunQueueDepth} of every mapped LUN, by target name and LUN number: what a fabric
 * looks up when a session logs in to a target. Built once at start-up, read-only afterwards.
 */
public final class LunQueueDepths {

    /** No limits: every command goes straight to the core (tests, embedded use). */
    public static final LunQueueDepths NONE = new LunQueueDepths();

    private static final LunQueueDepth[] EMPTY = new LunQueueDepth[0];

    private final Map<String, LunQueueDepth[]> byTarget = new HashMap<>();

    /** Limits {@code lun} of {@code targetName} to {@code depth} outstanding commands (start-up only). */
    public LunQueueDepths limit(String targetName, int lun, int depth) {
        if (this == NONE) {
            throw new IllegalStateException("NONE is shared and stays empty");
        }
        String key = targetName.toLowerCase(Locale.ROOT);
        LunQueueDepth[] luns = byTarget.getOrDefault(key, EMPTY);
        if (lun >= luns.length) {
            LunQueueDepth[] grown = new LunQueueDepth[lun + 1];
            System.arraycopy(luns, 0, grown, 0, luns.length);
            luns = grown;
        }
        luns[lun] = new LunQueueDepth(depth);
        byTarget.put(key, luns);
        return this;
    }

    /**
     * The queue depths of a target's LUNs, indexed by LUN number (null where none is set); the
     * array is shared, do not change it. iSCSI names compare case-insensitively (RFC 3722).
     */
    public LunQueueDepth[] forTarget(String targetName) {
        return targetName == null ? EMPTY : byTarget.getOrDefault(targetName.toLowerCase(Locale.ROOT), EMPTY);
    }
}
