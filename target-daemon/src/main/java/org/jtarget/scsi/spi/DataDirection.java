package org.jtarget.scsi.spi;

/** Which way a command's data moves, seen from the initiator (SAM-5 4.5). */
public enum DataDirection {
    /** No data phase. */
    NONE,
    /** Data-In: target to initiator (READ, INQUIRY...). */
    READ,
    /** Data-Out: initiator to target (WRITE, MODE SELECT...). */
    WRITE,
    /** Both directions (XDWRITEREAD); not used by the commands implemented so far. */
    BIDIRECTIONAL
}
