package org.jtarget.config;

import java.util.List;

/**
 * One entry of a target's {@code acl}: an initiator allowed to log in, and the LUNs it sees.
 * {@code "iqn.x"} in the list is the entry {@code {initiator: iqn.x}}.
 *
 * @param initiator     the initiator name: an iSCSI name, an SRP initiator port name (0x and 32
 *                      hex digits, in lowercase), or {@code "*"} for any
 * @param luns          {@code luns}: the LUNs it sees, or null (key absent) for every LUN of the target
 * @param readOnlyLuns  {@code read-only-luns}: LUNs it sees but may only read; empty if none
 */
public record AclConfig(String initiator, List<Integer> luns, List<Integer> readOnlyLuns) {

    public AclConfig {
        luns = luns == null ? null : List.copyOf(luns);
        readOnlyLuns = List.copyOf(readOnlyLuns);
    }

    /** An entry that sees every LUN, writable (the plain-name form). */
    public static AclConfig allLuns(String initiator) {
        return new AclConfig(initiator, null, List.of());
    }
}
