package org.jtarget.scsi.pr;

import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;

import java.util.Locale;

import static org.jtarget.scsi.spi.TransportIds.ISID_SEPARATOR;

/**
 * One registration (SPC-4 5.13.7): a reservation key for an initiator port on a target port, or on
 * every target port of this target with ALL_TG_PT (our targets have one port group, so that is
 * every relative target port). Registrations made through SPEC_I_PT with an iSCSI TransportID of
 * format 00b name only an iSCSI name: they cover every initiator port of that name.
 *
 * @param protocol             the protocol of the initiator port (how READ FULL STATUS encodes its TransportID)
 * @param initiatorPortName    {@code iqn...,i,0x<ISID>}, or the bare iSCSI name for a format-00b TransportID
 * @param relativeTargetPortId the target port the registration was made through
 * @param allTargetPorts       ALL_TG_PT was set
 * @param key                  the reservation key (never 0)
 */
public record Registration(ProtocolId protocol, String initiatorPortName, int relativeTargetPortId,
                           boolean allTargetPorts, long key) {

    /** True if commands from {@code nexus} are covered by this registration. */
    public boolean matches(ITNexus nexus) {
        if (protocol != nexus.protocol()
                || !allTargetPorts && relativeTargetPortId != nexus.relativeTargetPortId()) {
            return false;
        }
        return coversPort(nexus.initiatorPortName());
    }

    /** True if this registration covers the initiator port {@code portName} (ignoring target ports). */
    public boolean coversPort(String portName) {
        if (initiatorPortName.contains(ISID_SEPARATOR)) {
            return initiatorPortName.equalsIgnoreCase(portName);
        }
        int sep = portName.toLowerCase(Locale.ROOT).indexOf(ISID_SEPARATOR);
        String name = sep < 0 ? portName : portName.substring(0, sep);
        return initiatorPortName.equalsIgnoreCase(name);
    }

    /** The same registration with another key. */
    Registration withKey(long newKey) {
        return new Registration(protocol, initiatorPortName, relativeTargetPortId, allTargetPorts, newKey);
    }
}
