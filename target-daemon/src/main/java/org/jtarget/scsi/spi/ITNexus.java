package org.jtarget.scsi.spi;

/**
 * An I_T nexus (SAM-5 4.7): one initiator port talking to one target port. For iSCSI the
 * initiator port name is {@code iqn...,i,0x<ISID>} and the target port name
 * {@code iqn...,t,0x<TPGT>} (RFC 7143 13.8 / SPC-4 7.8.6); for SRP the initiator port name is
 * {@code 0x} and the 32 hex digits of its 16-byte identifier. One instance per session, created
 * at login and reused for every command, so unit attentions and reservations can key on it.
 *
 * @param protocol              the SCSI transport protocol of the nexus (SPC-4 7.6.1)
 * @param initiatorName         the initiator's name (iSCSI: its IQN/EUI/NAA), what ACLs key on
 * @param initiatorPortName     the full SCSI initiator port name (iSCSI: name + ",i,0x" + ISID)
 * @param targetPortName        the full SCSI target port name (iSCSI: name + ",t,0x" + TPGT)
 * @param relativeTargetPortId  SPC-4 relative target port identifier (1-based) of that port
 * @param targetPortGroup       the target port group (the iSCSI TPGT)
 */
public record ITNexus(ProtocolId protocol, String initiatorName, String initiatorPortName, String targetPortName,
                      int relativeTargetPortId, int targetPortGroup) {

    /** The initiator port's TransportID (SPC-4 7.6.4) in the nexus's protocol. */
    public byte[] initiatorTransportId() {
        return TransportIds.encode(protocol, initiatorPortName);
    }
}
