package org.jtarget.scsi.spi;

/**
 * A decoded TransportID (SPC-4 7.6.4): the protocol and the initiator port name in the form the
 * core keys registrations by ({@link ITNexus#initiatorPortName()}); for an iSCSI TransportID of
 * format 00b the bare iSCSI name, which stands for every initiator port of that name.
 */
public record TransportId(ProtocolId protocol, String portName) {
}
