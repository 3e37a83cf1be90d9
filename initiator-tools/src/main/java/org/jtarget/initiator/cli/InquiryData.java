package org.jtarget.initiator.cli;

import java.nio.charset.StandardCharsets;

/**
 * Standard INQUIRY data (SPC-4 6.6.2), the fields the CLI prints.
 *
 * <pre>
 * 0  PERIPHERAL QUALIFIER(7..5) PERIPHERAL DEVICE TYPE(4..0)
 * 1  RMB(7)          2 VERSION          3 NORMACA(5) HISUP(4) RESPONSE DATA FORMAT(3..0)
 * 8..15 T10 VENDOR IDENTIFICATION   16..31 PRODUCT IDENTIFICATION   32..35 PRODUCT REVISION LEVEL
 * </pre>
 */
public record InquiryData(int qualifier, int deviceType, boolean removable, int version, String vendor,
                          String product, String revision) {

    public static final int VENDOR_OFFSET = 8;
    public static final int PRODUCT_OFFSET = 16;
    public static final int REVISION_OFFSET = 32;
    public static final int STANDARD_LENGTH = 36;

    /** SPC-4 table 9: peripheral device type names (index = code). */
    private static final String[] DEVICE_TYPES = {
        "direct access block device", "sequential access device", "printer device", "processor device",
        "write-once device", "CD/DVD device", "scanner device", "optical memory device", "medium changer device",
        "communications device", "obsolete", "obsolete", "storage array controller device",
        "enclosure services device", "simplified direct access device", "optical card reader/writer device",
        "bridge controller commands", "object-based storage device", "automation/drive interface",
        "security manager device", "host managed zoned block device"};

    /** Decodes the first 36 bytes; shorter data is an error. */
    public static InquiryData decode(byte[] d) {
        if (d.length < STANDARD_LENGTH) {
            throw new IllegalArgumentException("standard INQUIRY data is " + d.length + " bytes, need "
                    + STANDARD_LENGTH);
        }
        return new InquiryData((d[0] & 0xe0) >>> 5, d[0] & 0x1f, (d[1] & 0x80) != 0, d[2] & 0xff,
                ascii(d, VENDOR_OFFSET, 8), ascii(d, PRODUCT_OFFSET, 16), ascii(d, REVISION_OFFSET, 4));
    }

    /** SPC-4 4.3.1: ASCII fields are left-aligned and padded with spaces; the padding is dropped. */
    static String ascii(byte[] d, int offset, int length) {
        return new String(d, offset, length, StandardCharsets.US_ASCII).stripTrailing();
    }

    /** The device type in words, e.g. "direct access block device". */
    public String deviceTypeName() {
        if (deviceType == 0x1f) {
            return "unknown or no device type";
        }
        return deviceType < DEVICE_TYPES.length ? DEVICE_TYPES[deviceType] : "reserved";
    }

    /** The lines {@code inquiry} prints. */
    public String describe() {
        return "Vendor: " + vendor + "\nProduct: " + product + "\nRevision: " + revision
                + "\nDevice type: 0x" + Integer.toHexString(deviceType) + " (" + deviceTypeName() + ")"
                + "\nPeripheral qualifier: " + qualifier + "\nRemovable: " + (removable ? "yes" : "no")
                + "\nVersion: 0x" + Integer.toHexString(version) + "\n";
    }
}
