package org.jtarget.daemon;

import org.jtarget.config.JtargetConfig;

/** Builds the {@link DaemonRuntime} for a validated configuration (nothing is opened before {@code start}). */
@FunctionalInterface
public interface DaemonRuntimeFactory {

    DaemonRuntime create(JtargetConfig config);

    /** The runtime {@code jtargetd} runs: stores, SCSI cores and the iSCSI/TCP fabric. */
    static DaemonRuntimeFactory standard() {
        return TargetRuntime::new;
    }
}
