package org.jtarget.scsi.spi;

/**
 * An I_T nexus (SAM-5 4.7): one initiator port talking to one target port. For iSCSI the
 * initiator port name is {@code iqn...,i,0x<ISID>} and the target port name
 * {@code iqn...,t,0x<TPGT>} (RFC 7143 13.8 / SPC-4 7.8.6). One instance per session, created at
 * login and reused for every command, so unit attentions and reservations can key on it.
 *
 * @param initiatorName         the initiator's iSCSI name (IQN/EUI/NAA), used for ACLs
 * @param initiatorPortName     the full SCSI initiator port name (name + ",i,0x" + ISID)
 * @param targetPortName        the full SCSI target port name (name + ",t,0x" + TPGT)
 * @param relativeTargetPortId  SPC-4 relative target port identifier (1-based) of that port
 * @param targetPortGroup       the target port group (the iSCSI TPGT)
 */
public record ITNexus(String initiatorName, String initiatorPortName, String targetPortName,
                      int relativeTargetPortId, int targetPortGroup) {
}
