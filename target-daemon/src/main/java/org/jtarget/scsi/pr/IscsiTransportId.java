package org.jtarget.scsi.pr;

import java.nio.charset.StandardCharsets;

/**
 * iSCSI TransportIDs (SPC-4 7.6.4.6), as carried by SPEC_I_PT and REGISTER AND MOVE parameter data
 * and returned by READ FULL STATUS.
 * <pre>
 * 0 FORMAT CODE(7..6) PROTOCOL IDENTIFIER(3..0) = 5 | 1 reserved | 2..3 ADDITIONAL LENGTH (n-3, multiple of 4, at least 20)
 * 4..n  format 00b: ISCSI NAME, null terminated and padded
 *       format 01b: ISCSI NAME ",i,0x" ISCSI INITIATOR SESSION ID (hex), null terminated and padded
 * </pre>
 */
public final class IscsiTransportId {

    /** SPC-4 7.6.1 table "PROTOCOL IDENTIFIER values": iSCSI. */
    public static final int PROTOCOL_ISCSI = 0x5;
    static final int FORMAT_NAME = 0x00;
    static final int FORMAT_PORT = 0x40;
    static final int HEADER_LENGTH = 4;
    private static final int MIN_ADDITIONAL_LENGTH = 20;
    private static final int ADDITIONAL_LENGTH_OFFSET = 2;

    private IscsiTransportId() {
    }

    /**
     * Encodes {@code portName} ({@code name,i,0x<ISID>} → format 01b; a bare iSCSI name → format
     * 00b), null terminated and padded to a multiple of four.
     */
    public static byte[] encode(String portName) {
        byte[] text = portName.getBytes(StandardCharsets.UTF_8);
        int additional = Math.max(MIN_ADDITIONAL_LENGTH, (text.length + 1 + 3) & ~3);
        byte[] id = new byte[HEADER_LENGTH + additional];
        boolean port = portName.contains(Registration.ISID_SEPARATOR);
        id[0] = (byte) ((port ? FORMAT_PORT : FORMAT_NAME) | PROTOCOL_ISCSI);
        id[ADDITIONAL_LENGTH_OFFSET] = (byte) (additional >> 8);
        id[ADDITIONAL_LENGTH_OFFSET + 1] = (byte) additional;
        System.arraycopy(text, 0, id, HEADER_LENGTH, text.length);
        return id;
    }

    /**
     * The total length of the TransportID at {@code at}, or -1 if it does not fit in {@code end}.
     */
    public static int length(byte[] b, int at, int end) {
        if (at + HEADER_LENGTH > end) {
            return -1;
        }
        int n = HEADER_LENGTH + ((b[at + ADDITIONAL_LENGTH_OFFSET] & 0xFF) << 8 | (b[at + 3] & 0xFF));
        return at + n > end ? -1 : n;
    }

    /**
     * The initiator port name (format 01b) or iSCSI name (format 00b) in the TransportID at
     * {@code at} of total length {@code length}, or null if it is not a valid iSCSI TransportID.
     */
    public static String decode(byte[] b, int at, int length) {
        int format = b[at] & 0xC0;
        if ((b[at] & 0x0F) != PROTOCOL_ISCSI || (format != FORMAT_NAME && format != FORMAT_PORT)) {
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
        int sep = s.toLowerCase().indexOf(Registration.ISID_SEPARATOR);
        if (format == FORMAT_PORT) {
            return sep > 0 && sep + Registration.ISID_SEPARATOR.length() < s.length() ? s : null;
        }
        return sep < 0 ? s : null;
    }
}
