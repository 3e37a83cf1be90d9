package org.jtarget.scsi.spi;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The TransportID codec (SPC-4 7.6.4), one format per protocol, as carried by PERSISTENT RESERVE
 * OUT (SPEC_I_PT, REGISTER AND MOVE) and returned by READ FULL STATUS. Port names are the core's
 * string form of an initiator port ({@link ITNexus#initiatorPortName()}).
 * <pre>
 * every format: byte 0 = FORMAT CODE (7..6) | PROTOCOL IDENTIFIER (3..0)
 * iSCSI (5h, 7.6.4.6): 1 reserved | 2..3 ADDITIONAL LENGTH (n-3, multiple of 4, at least 20)
 *   4..n format 00b: ISCSI NAME, null terminated and padded
 *        format 01b: ISCSI NAME ",i,0x" ISCSI INITIATOR SESSION ID (hex), null terminated and padded
 * SRP (4h, 7.6.4.5): 24 bytes, format 00b only: 1..7 reserved | 8..23 INITIATOR PORT IDENTIFIER
 *   (port name "0x" followed by its 32 hex digits, as the SRP fabric names its initiator ports)
 * </pre>
 */
public final class TransportIds {

    /** The separator of an iSCSI initiator port name between the iSCSI name and the ISID (RFC 7143 13.8). */
    public static final String ISID_SEPARATOR = ",i,0x";

    static final int FORMAT_NAME = 0x00;
    static final int FORMAT_PORT = 0x40;
    private static final int FORMAT_MASK = 0xC0;
    static final int HEADER_LENGTH = 4;
    private static final int ISCSI_MIN_ADDITIONAL_LENGTH = 20;
    private static final int ADDITIONAL_LENGTH_OFFSET = 2;
    static final int SRP_LENGTH = 24;
    private static final int SRP_PORT_OFFSET = 8;
    private static final int SRP_PORT_BYTES = 16;
    private static final String SRP_PORT_PREFIX = "0x";

    private TransportIds() {
    }

    /** Encodes the initiator port {@code portName} of {@code protocol}. */
    public static byte[] encode(ProtocolId protocol, String portName) {
        return switch (protocol) {
            case ISCSI -> encodeIscsi(portName);
            case SRP -> encodeSrp(portName);
        };
    }

    /**
     * The total length of the TransportID at {@code at}, or -1 if its header does not fit in
     * {@code end}, it does not fit itself, or its protocol has no format here.
     */
    public static int length(byte[] b, int at, int end) {
        if (at >= end) {
            return -1;
        }
        ProtocolId protocol = ProtocolId.fromCode(b[at]);
        int n;
        if (protocol == ProtocolId.SRP) {
            n = SRP_LENGTH;
        } else {
            if (at + HEADER_LENGTH > end) {
                return -1;
            }
            // iSCSI, and any protocol without a format here: its length is read the iSCSI way so
            // that the caller can step over it and reject it as an invalid field, as before
            n = HEADER_LENGTH + ((b[at + ADDITIONAL_LENGTH_OFFSET] & 0xFF) << 8 | (b[at + 3] & 0xFF));
        }
        return at + n > end ? -1 : n;
    }

    /**
     * The TransportID at {@code at} of total length {@code length} (see {@link #length}), or null
     * if it is not a valid TransportID of {@code expected}: a target accepts the TransportIDs of the
     * protocol it serves the nexus through.
     */
    public static TransportId decode(byte[] b, int at, int length, ProtocolId expected) {
        if (ProtocolId.fromCode(b[at]) != expected) {
            return null;
        }
        String name = switch (expected) {
            case ISCSI -> decodeIscsi(b, at, length);
            case SRP -> decodeSrp(b, at, length);
        };
        return name == null ? null : new TransportId(expected, name);
    }

    private static byte[] encodeIscsi(String portName) {
        byte[] text = portName.getBytes(StandardCharsets.UTF_8);
        int additional = Math.max(ISCSI_MIN_ADDITIONAL_LENGTH, (text.length + 1 + 3) & ~3);
        byte[] id = new byte[HEADER_LENGTH + additional];
        boolean port = portName.contains(ISID_SEPARATOR);
        id[0] = (byte) ((port ? FORMAT_PORT : FORMAT_NAME) | ProtocolId.ISCSI.code());
        id[ADDITIONAL_LENGTH_OFFSET] = (byte) (additional >> 8);
        id[ADDITIONAL_LENGTH_OFFSET + 1] = (byte) additional;
        System.arraycopy(text, 0, id, HEADER_LENGTH, text.length);
        return id;
    }

    private static String decodeIscsi(byte[] b, int at, int length) {
        int format = b[at] & FORMAT_MASK;
        if (format != FORMAT_NAME && format != FORMAT_PORT) {
            return null;
        }
        int end = at + HEADER_LENGTH;
        while (end < at + length && b[end] != 0) {
            end++;
        }
        if (end == at + HEADER_LENGTH || end == at + length) {
            return null; // empty or not null terminated
        }
        String s = new String(b, at + HEADER_LENGTH, end - at - HEADER_LENGTH, StandardCharsets.UTF_8);
        int sep = s.toLowerCase(Locale.ROOT).indexOf(ISID_SEPARATOR);
        if (format == FORMAT_PORT) {
            return sep > 0 && sep + ISID_SEPARATOR.length() < s.length() ? s : null;
        }
        return sep < 0 ? s : null;
    }

    /**
     * SRP port names are "0x" and up to 32 hex digits; fewer digits are the low-order bytes of the
     * 16-byte identifier (leading zero bytes left out).
     */
    private static byte[] encodeSrp(String portName) {
        String hex = portName.regionMatches(true, 0, SRP_PORT_PREFIX, 0, 2) ? portName.substring(2) : portName;
        if (hex.length() % 2 != 0 || hex.length() > 2 * SRP_PORT_BYTES) {
            throw new IllegalArgumentException("not an SRP initiator port name: " + portName);
        }
        byte[] port = HexFormat.of().parseHex(hex);
        byte[] id = new byte[SRP_LENGTH];
        id[0] = (byte) (FORMAT_NAME | ProtocolId.SRP.code());
        System.arraycopy(port, 0, id, SRP_PORT_OFFSET + SRP_PORT_BYTES - port.length, port.length);
        return id;
    }

    private static String decodeSrp(byte[] b, int at, int length) {
        if ((b[at] & FORMAT_MASK) != FORMAT_NAME || length != SRP_LENGTH) {
            return null;
        }
        return SRP_PORT_PREFIX + HexFormat.of().formatHex(b, at + SRP_PORT_OFFSET, at + SRP_PORT_OFFSET + SRP_PORT_BYTES);
    }
}
