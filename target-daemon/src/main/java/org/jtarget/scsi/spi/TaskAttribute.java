package org.jtarget.scsi.spi;

/**
 * SAM-5 8.6 task attributes. Protocol neutral: each fabric maps its own wire encoding (iSCSI's
 * ATTR field: {@code org.jtarget.fabric.iscsi.pdu.ScsiWireCodes}).
 */
public enum TaskAttribute {
    SIMPLE,
    ORDERED,
    HEAD_OF_QUEUE,
    ACA
}
