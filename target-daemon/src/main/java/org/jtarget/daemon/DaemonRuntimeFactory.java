package org.jtarget.daemon;

import org.jtarget.config.JtargetConfig;

/** Builds the {@link DaemonRuntime} for a validated configuration (nothing is opened before {@code start}). */
@FunctionalInterface
public interface DaemonRuntimeFactory {

    DaemonRuntime create(JtargetConfig config);

    /**
     * The runtime {@code jtargetd} runs. For now only the stores ({@link BackstoreRuntime}); the
     * wiring of the SCSI core and the iSCSI fabric replaces it.
     */
    static DaemonRuntimeFactory standard() {
        return BackstoreRuntime::new;
    }
}
