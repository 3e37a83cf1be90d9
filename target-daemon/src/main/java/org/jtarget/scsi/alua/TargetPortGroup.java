package org.jtarget.scsi.alua;

/**
 * One target port group as REPORT TARGET PORT GROUPS describes it (SPC-4 6.27, table 179): for
 * iSCSI, one target portal group (TPGT), whose SCSI target port has relative target port
 * identifier = TPGT (the fabric's {@code ITNexus.relativeTargetPortId}, also in VPD 83h).
 * Immutable: a change replaces the whole group in {@link TargetPortGroups}.
 *
 * @param id                  TARGET PORT GROUP (1..65535, the iSCSI TPGT)
 * @param state               the asymmetric access state
 * @param preferred           PREF: the preferred group for the logical units (SPC-4 5.15.2.7)
 * @param statusCode          STATUS CODE (table 181): 0 none, 1 changed by SET TARGET PORT GROUPS,
 *                            2 changed implicitly
 * @param relativeTargetPorts the RELATIVE TARGET PORT IDENTIFIERs of the group's ports
 */
public record TargetPortGroup(int id, AluaState state, boolean preferred, int statusCode, int[] relativeTargetPorts) {

    /** STATUS CODE 00h: no status available. */
    public static final int STATUS_NONE = 0x00;
    /** STATUS CODE 01h: target port asymmetric access state altered by SET TARGET PORT GROUPS. */
    public static final int STATUS_EXPLICIT = 0x01;
    /** STATUS CODE 02h: target port asymmetric access state altered by implicit behaviour. */
    public static final int STATUS_IMPLICIT = 0x02;

    public TargetPortGroup {
        if (id < 1 || id > 0xFFFF) {
            throw new IllegalArgumentException("target port group out of range 1..65535: " + id);
        }
        if (state == null) {
            throw new IllegalArgumentException("target port group " + id + ": state is null");
        }
        relativeTargetPorts = relativeTargetPorts.clone();
    }

    /** A group with the single target port whose relative identifier equals the group id (iSCSI). */
    public static TargetPortGroup of(int id, AluaState state, boolean preferred) {
        return new TargetPortGroup(id, state, preferred, STATUS_NONE, new int[] {id});
    }

    @Override
    public int[] relativeTargetPorts() {
        return relativeTargetPorts.clone();
    }

    /** Number of target ports (TARGET PORT COUNT). */
    public int portCount() {
        return relativeTargetPorts.length;
    }

    /** Relative target port identifier {@code i}. */
    public int relativeTargetPort(int i) {
        return relativeTargetPorts[i];
    }

    /** This group with PREF = {@code newPreferred}. */
    TargetPortGroup withPreferred(boolean newPreferred) {
        return new TargetPortGroup(id, state, newPreferred, statusCode, relativeTargetPorts);
    }

    /** This group in {@code newState}, with the status code saying how it got there. */
    TargetPortGroup withState(AluaState newState, int newStatusCode) {
        return new TargetPortGroup(id, newState, preferred, newStatusCode, relativeTargetPorts);
    }
}
