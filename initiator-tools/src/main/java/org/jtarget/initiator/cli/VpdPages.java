package org.jtarget.initiator.cli;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Decodes the Vital Product Data pages the CLI prints (SPC-4 7.8): every page starts with
 * byte 1 = PAGE CODE and bytes 2..3 = PAGE LENGTH (bytes after the 4-byte header).
 */
public final class VpdPages {

    public static final int UNIT_SERIAL_NUMBER = 0x80;
    public static final int DEVICE_IDENTIFICATION = 0x83;
    public static final int SUPPORTED_PAGES = 0x00;
    private static final int HEADER_LENGTH = 4;
    /** SPC-4 7.8.6.1 table 459: designator type names (index = type). */
    private static final String[] DESIGNATOR_TYPES = {"vendor specific", "T10 vendor ID", "EUI-64", "NAA",
        "relative target port", "target port group", "logical unit group", "MD5 logical unit",
        "SCSI name string", "protocol specific port"};
    private static final String[] ASSOCIATIONS = {"logical unit", "target port", "target device", "reserved"};

    private VpdPages() {
    }

    /** Describes any page: 0x00, 0x80 and 0x83 in words, others as a hex dump. */
    public static String describe(byte[] page) {
        if (page.length < HEADER_LENGTH) {
            throw new IllegalArgumentException("VPD page shorter than its 4-byte header");
        }
        int code = page[1] & 0xff;
        int end = Math.min(page.length, HEADER_LENGTH + pageLength(page));
        return switch (code) {
            case SUPPORTED_PAGES -> supportedPages(page, end);
            case UNIT_SERIAL_NUMBER -> "Unit serial number: "
                    + new String(page, HEADER_LENGTH, end - HEADER_LENGTH, StandardCharsets.US_ASCII).strip() + "\n";
            case DEVICE_IDENTIFICATION -> designators(page, end);
            default -> "VPD page 0x" + hex2(code) + ":\n" + HexDump.format(page, 0, end, 0);
        };
    }

    private static int pageLength(byte[] page) {
        return ((page[2] & 0xff) << 8) | (page[3] & 0xff);
    }

    private static String supportedPages(byte[] page, int end) {
        StringBuilder sb = new StringBuilder("Supported VPD pages:");
        for (int i = HEADER_LENGTH; i < end; i++) {
            sb.append(" 0x").append(hex2(page[i] & 0xff));
        }
        return sb.append('\n').toString();
    }

    /**
     * SPC-4 7.8.6.1: designation descriptors, each {@code 0 PROTOCOL IDENTIFIER(7..4) CODE SET(3..0)
     * | 1 PIV(7) ASSOCIATION(5..4) DESIGNATOR TYPE(3..0) | 3 DESIGNATOR LENGTH | 4.. DESIGNATOR}.
     */
    private static String designators(byte[] page, int end) {
        StringBuilder sb = new StringBuilder("Device identification designators:\n");
        int off = HEADER_LENGTH;
        while (off + HEADER_LENGTH <= end) {
            int codeSet = page[off] & 0x0f;
            int association = (page[off + 1] >>> 4) & 0x03;
            int type = page[off + 1] & 0x0f;
            int length = page[off + 3] & 0xff;
            int stop = Math.min(end, off + HEADER_LENGTH + length);
            sb.append("  ").append(type < DESIGNATOR_TYPES.length ? DESIGNATOR_TYPES[type] : "reserved")
                    .append(" (type 0x").append(Integer.toHexString(type)).append(", ")
                    .append(ASSOCIATIONS[association]).append(", code set ").append(codeSet).append("): ")
                    .append(HexFormat.of().formatHex(page, off + HEADER_LENGTH, stop));
            if (codeSet == 2 || codeSet == 3) { // ASCII or UTF-8 (SPC-4 table 457)
                sb.append("  \"").append(new String(page, off + HEADER_LENGTH, stop - off - HEADER_LENGTH,
                        StandardCharsets.UTF_8).replace("\0", "")).append('"');
            }
            sb.append('\n');
            off += HEADER_LENGTH + length;
        }
        return sb.toString();
    }

    private static String hex2(int v) {
        return String.format("%02x", v);
    }
}
