package org.jtarget.daemon.api;

import org.jtarget.daemon.DaemonRuntime;

import java.nio.file.Path;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The daemon as the API manages it.
 *
 * @param runtime    what it serves
 * @param configFile the file it was started with (reload reads it again)
 * @param startedAt  when it started serving
 * @param reload     reloads the config file the way SIGHUP does: null when applied, else the one
 *                   line saying why nothing changed
 */
public record ManagedDaemon(DaemonRuntime runtime, Path configFile, Instant startedAt, Supplier<String> reload) {
}
