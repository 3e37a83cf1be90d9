package org.jtarget.fabric.iscsi.login;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.jtarget.fabric.iscsi.login.KeyKind.*;

/**
 * The login key table: every key of RFC 7143 section 13 with its kind, range, default and the
 * target's value, in the RFC's order, then the keys of iSER (RFC 7145 6), which only a transport
 * that moves data by RDMA knows ({@link KeyRule#rdmaOnly()}). Reading it shows what the target
 * negotiates and how.
 */
public final class OperationalKeys {

    public static final String YES = "Yes";
    public static final String NO = "No";
    public static final String NOT_UNDERSTOOD = "NotUnderstood";
    public static final String IRRELEVANT = "Irrelevant";
    public static final String REJECT = "Reject";

    private static final int MAX_LENGTH = 16_777_215;
    private static final long MAX_UNSIGNED_32 = 0xffff_ffffL;
    private static final Map<String, KeyRule> TABLE = new LinkedHashMap<>();

    static {
        // RFC 7143 13.1-13.4
        row("HeaderDigest", LIST, 0, 0, "None", false, false, s -> "CRC32C,None");
        row("DataDigest", LIST, 0, 0, "None", false, false, s -> "CRC32C,None");
        row("MaxConnections", MIN, 1, 65535, "1", true, true, s -> Integer.toString(s.maxConnections()));
        row("SendTargets", FULL_FEATURE_ONLY, 0, 0, null, false, false, s -> null);
        // 13.4-13.9: names, aliases, addresses
        row("TargetName", SESSION, 0, 0, null, true, false, s -> null);
        row("InitiatorName", SESSION, 0, 0, null, true, false, s -> null);
        row("TargetAlias", TARGET_ONLY, 0, 0, null, true, false, s -> null);
        row("InitiatorAlias", SESSION, 0, 0, null, true, false, s -> null);
        row("TargetAddress", TARGET_ONLY, 0, 0, null, false, false, s -> null);
        row("TargetPortalGroupTag", TARGET_ONLY, 0, 0, null, true, false, s -> null);
        // 13.10-13.22: session and connection parameters
        row("InitialR2T", OR, 0, 0, YES, true, true, s -> yesNo(s.initialR2T()));
        row("ImmediateData", AND, 0, 0, YES, true, true, s -> yesNo(s.immediateData()));
        row("MaxRecvDataSegmentLength", DECLARATIVE, 512, MAX_LENGTH, "8192", false, false,
                s -> Integer.toString(s.maxRecvDataSegmentLength()));
        row("MaxBurstLength", MIN, 512, MAX_LENGTH, "262144", true, true, s -> Integer.toString(s.maxBurstLength()));
        row("FirstBurstLength", MIN, 512, MAX_LENGTH, "65536", true, true, s -> Integer.toString(s.firstBurstLength()));
        row("DefaultTime2Wait", MAX, 0, 3600, "2", true, false, s -> Integer.toString(s.defaultTime2Wait()));
        row("DefaultTime2Retain", MIN, 0, 3600, "20", true, false, s -> Integer.toString(s.defaultTime2Retain()));
        row("MaxOutstandingR2T", MIN, 1, 65535, "1", true, true, s -> Integer.toString(s.maxOutstandingR2T()));
        // The target sends Data-In and accepts Data-Out in order only: it prefers Yes (OR).
        row("DataPDUInOrder", OR, 0, 0, YES, true, true, s -> YES);
        row("DataSequenceInOrder", OR, 0, 0, YES, true, true, s -> YES);
        // Only ErrorRecoveryLevel 0 is implemented.
        row("ErrorRecoveryLevel", MIN, 0, 2, "0", true, false, s -> "0");
        row("SessionType", SESSION, 0, 0, "Normal", true, false, s -> null);
        // 13.23-13.24 (TaskReporting, iSCSIProtocolLevel; RFC 7144)
        row("TaskReporting", LIST, 0, 0, "RFC3720", true, false, s -> "RFC3720");
        row("iSCSIProtocolLevel", MIN, 0, 31, "1", true, false, s -> "1");
        // Obsoleted keys (RFC 7143 13, "Obsoleted Keys"): markers are gone.
        row("OFMarker", OBSOLETE_NO, 0, 0, NO, false, false, s -> NO);
        row("IFMarker", OBSOLETE_NO, 0, 0, NO, false, false, s -> NO);
        row("OFMarkInt", OBSOLETE_REJECT, 0, 0, null, false, false, s -> null);
        row("IFMarkInt", OBSOLETE_REJECT, 0, 0, null, false, false, s -> null);
        // iSER (RFC 7145 6.3-6.7), offered and accepted only over an RDMA transport; over TCP they
        // stay unknown keys, answered NotUnderstood (RFC 7143 6.2) as by any target without iSER.
        // RDMAExtensions: LO, AND, default No; the target offers Yes itself (6.3: it must offer
        // the key in its first operational response when it is to be negotiated).
        rdmaRow("RDMAExtensions", AND, 0, 0, NO, true, s -> YES);
        // Control-type PDU sizes in each direction: IO, CO, 512..2^24-1, default 8192, Minimum.
        // The target's value is what it can send in one PDU: its send buffers are sized like its
        // receive buffers (iSER: 8192 data bytes), so a longer Text Response is split (C bit).
        rdmaRow("InitiatorRecvDataSegmentLength", MIN, 512, MAX_LENGTH, "8192", false,
                s -> Integer.toString(s.maxRecvDataSegmentLength()));
        rdmaRow("TargetRecvDataSegmentLength", MIN, 512, MAX_LENGTH, "8192", false,
                s -> Integer.toString(s.maxRecvDataSegmentLength()));
        // Each side declares how many unexpected control-type PDUs it can take; 0 (default) is no limit.
        rdmaRow("MaxOutstandingUnexpectedPDUs", DECLARATIVE, 0, MAX_UNSIGNED_32, "0", true, s -> "0");
        // Security (RFC 7143 12.1, 13.2 AuthMethod)
        for (String key : new String[] {"AuthMethod", "CHAP_A", "CHAP_I", "CHAP_C", "CHAP_N", "CHAP_R"}) {
            row(key, SECURITY, 0, 0, null, false, false, s -> null);
        }
    }

    private OperationalKeys() {
    }

    private static void row(String name, KeyKind kind, long min, long max, String def, boolean lo, boolean irrDisc,
                            java.util.function.Function<LoginSettings, String> target) {
        TABLE.put(name, new KeyRule(name, kind, min, max, def, lo, irrDisc, target, false));
    }

    /** An iSER key: irrelevant in discovery sessions, where RDMAExtensions is irrelevant (RFC 7145 6.3). */
    private static void rdmaRow(String name, KeyKind kind, long min, long max, String def, boolean lo,
                                java.util.function.Function<LoginSettings, String> target) {
        TABLE.put(name, new KeyRule(name, kind, min, max, def, lo, true, target, true));
    }

    private static String yesNo(boolean b) {
        return b ? YES : NO;
    }

    /** The row for a key over TCP, or null for keys the target does not understand (X-, X#, unknown, iSER). */
    public static KeyRule find(String key) {
        return find(key, false);
    }

    /**
     * The row for a key, or null for keys the target does not understand (X-, X#, unknown, and
     * iSER's keys unless {@code rdma}).
     *
     * @param rdma true if the connection's transport moves data by RDMA (iSER)
     */
    public static KeyRule find(String key, boolean rdma) {
        KeyRule rule = TABLE.get(key);
        return rule == null || (rule.rdmaOnly() && !rdma) ? null : rule;
    }

    /** Every row known over such a transport, in RFC order. */
    public static List<KeyRule> all(boolean rdma) {
        List<KeyRule> rows = new ArrayList<>(TABLE.size());
        for (KeyRule rule : TABLE.values()) {
            if (rdma || !rule.rdmaOnly()) {
                rows.add(rule);
            }
        }
        return Collections.unmodifiableList(rows);
    }
}
