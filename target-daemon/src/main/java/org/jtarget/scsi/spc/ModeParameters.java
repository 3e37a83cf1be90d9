package org.jtarget.scsi.spc;

/**
 * The changeable mode parameters of one logical unit (shared by all I_T nexuses, SPC-4 5.x
 * allows either): caching page WCE (SBC-4 6.5.5) and control page D_SENSE and SWP (SPC-4 7.5.8).
 * Everything else in the mode pages is fixed. Saved parameters are not supported.
 */
public final class ModeParameters {

    private final boolean defaultWce;
    private volatile boolean wce;
    private volatile boolean descriptorSense;
    private volatile boolean softwareWriteProtect;

    public ModeParameters(boolean defaultWce) {
        this.defaultWce = defaultWce;
        this.wce = defaultWce;
    }

    /** Writes may be cached until SYNCHRONIZE CACHE (WCE=1); when 0 every write is forced (FUA). */
    public boolean writeCacheEnabled() { return wce; }
    public void writeCacheEnabled(boolean v) { this.wce = v; }
    public boolean defaultWriteCacheEnabled() { return defaultWce; }
    /** Sense data in descriptor format (D_SENSE=1). */
    public boolean descriptorSense() { return descriptorSense; }
    public void descriptorSense(boolean v) { this.descriptorSense = v; }
    /** Software write protect (control page SWP, SPC-4 7.5.8): writes to the medium are refused. */
    public boolean softwareWriteProtect() { return softwareWriteProtect; }
    public void softwareWriteProtect(boolean v) { this.softwareWriteProtect = v; }

    private static final int RECORD_VERSION = 1;
    private static final int RECORD_WCE = 0x01;
    private static final int RECORD_D_SENSE = 0x02;
    private static final int RECORD_SWP = 0x04;

    /**
     * The changeable values as one record, for the peer of an HA pair: version u8 (1), then one
     * byte of flags: WCE 01h, D_SENSE 02h, SWP 04h.
     */
    public synchronized byte[] stateRecord() {
        return new byte[] {RECORD_VERSION, (byte) ((wce ? RECORD_WCE : 0) | (descriptorSense ? RECORD_D_SENSE : 0)
                | (softwareWriteProtect ? RECORD_SWP : 0))};
    }

    /** Takes the values of a {@link #stateRecord}. */
    public synchronized void installStateRecord(byte[] record) throws java.io.IOException {
        if (record.length != 2 || record[0] != RECORD_VERSION
                || (record[1] & ~(RECORD_WCE | RECORD_D_SENSE | RECORD_SWP)) != 0) {
            throw new java.io.IOException("mode parameter record of " + record.length + " bytes, version "
                    + (record.length > 0 ? record[0] : -1) + ": not one this node reads (version " + RECORD_VERSION + ")");
        }
        wce = (record[1] & RECORD_WCE) != 0;
        descriptorSense = (record[1] & RECORD_D_SENSE) != 0;
        softwareWriteProtect = (record[1] & RECORD_SWP) != 0;
    }
}
