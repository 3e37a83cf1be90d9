package org.jtarget.scsi.spi;

/** SAM-5 8.6 task attributes, in the iSCSI ATTR field's encoding order (RFC 7143 11.3.1). */
public enum TaskAttribute {
    /** iSCSI ATTR 0 is "untagged", which SAM treats as SIMPLE. */
    SIMPLE,
    SIMPLE_TAGGED,
    ORDERED,
    HEAD_OF_QUEUE,
    ACA;

    /** @param iscsiAttr the 3-bit ATTR field of an iSCSI SCSI Command PDU */
    public static TaskAttribute fromIscsi(int iscsiAttr) {
        return switch (iscsiAttr & 7) {
            case 0 -> SIMPLE;
            case 1 -> SIMPLE_TAGGED;
            case 2 -> ORDERED;
            case 3 -> HEAD_OF_QUEUE;
            case 4 -> ACA;
            default -> SIMPLE;
        };
    }
}
