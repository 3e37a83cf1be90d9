package org.jtarget.daemon;

import org.jtarget.config.JtargetConfig;

import java.time.Duration;

/**
 * A runtime with only the stores: opens every backstore on start and flushes and closes them on
 * stop. It makes the launcher runnable and testable until the SCSI core and the iSCSI fabric are
 * wired in (and is the first step of that runtime).
 */
public final class BackstoreRuntime implements DaemonRuntime {

    private final JtargetConfig config;
    private BackstoreSet stores;

    public BackstoreRuntime(JtargetConfig config) {
        this.config = config;
    }

    @Override
    public synchronized void start() throws Exception {
        stores = BackstoreSet.open(config);
    }

    /** The open stores, or null before start. */
    public synchronized BackstoreSet stores() {
        return stores;
    }

    @Override
    public synchronized void stop(Duration timeout) {
        if (stores != null) {
            stores.close();
            stores = null;
        }
    }
}
