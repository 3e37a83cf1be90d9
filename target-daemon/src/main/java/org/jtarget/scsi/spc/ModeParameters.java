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
}
