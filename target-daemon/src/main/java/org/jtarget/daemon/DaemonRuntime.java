package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.jtarget.config.JtargetConfig;

import java.time.Duration;

/**
 * Everything the daemon runs for one configuration: stores, SCSI core, fabrics and their portals.
 * {@link JtargetDaemon} owns the process lifecycle (arguments, config, signals, exit status) and
 * drives a runtime through start and stop.
 */
public interface DaemonRuntime {

    /**
     * Opens stores, builds the targets and binds the portals. Problems the operator must fix in the
     * config or the machine (missing file, permission denied, port in use) are
     * {@link ConfigException}s naming the key: the daemon prints that one line and exits 2.
     * Anything else is a start failure (exit 1). Either way {@link #stop} is called next and must
     * release whatever a partial start opened.
     */
    void start() throws Exception;

    /**
     * Stops accepting, drains or aborts commands, flushes and closes the stores. Idempotent, safe
     * after a failed or partial start, and should finish within {@code timeout}; the launcher stops
     * waiting after that and exits 1.
     */
    void stop(Duration timeout) throws Exception;

    /** One line saying what is served, for the service manager's status ({@code systemctl status}). */
    default String summary() {
        return "running";
    }

    /**
     * Completes once every event loop of the runtime has run a task submitted now: the systemd
     * watchdog is pinged only then, so that hung loops get the daemon restarted.
     */
    default java.util.concurrent.CompletableFuture<Void> probe() {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /** A planned HA switchover (SIGUSR1): the primary hands over to its peer; else a WARN line. */
    default void switchover() {
    }

    /**
     * Sets the handler of {@code /api/} on the TCP management listener (the launcher, once the API
     * exists; null when it closes). Runtimes without such a listener ignore it.
     */
    default void serveApiOverHttp(com.sun.net.httpserver.HttpHandler api) {
    }

    /** What is served now (the management API), or null when not started or already stopped. */
    default RuntimeState state() {
        return null;
    }

    /**
     * Applies an edit of the running config (the management API's LUN and ACL changes) through
     * {@link #reload}, atomically: no other reload comes between reading the config and applying
     * the edit. The config file is not changed.
     */
    default void edit(org.jtarget.config.TargetEdits.Edit edit) throws Exception {
        throw new ConfigException("", "", "this runtime cannot be edited; restart the daemon");
    }

    /**
     * Applies {@code next} to the running daemon (SIGHUP). A change it cannot apply live is a
     * {@link ConfigException} naming the key, and then nothing has changed.
     */
    default void reload(JtargetConfig next) throws Exception {
        throw new ConfigException(next.source().toString(), "", "this runtime cannot reload; restart the daemon");
    }
}
