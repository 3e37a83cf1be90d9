package org.jtarget.daemon;

import org.jtarget.backstore.crypt.EncryptingBackstores;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.JtargetConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The files a start creates: file stores with {@code create: true} that do not exist yet, and the
 * key files of those that are encrypted. A start that fails removes them again, so that a failed
 * start leaves the host as it found it and the next start (after the fix) creates them afresh: a
 * key file left behind would make {@code encrypt: new} refuse to start at all.
 *
 * <p>Listed before the start, by what does not exist then: a file that existed is never removed.
 */
final class FilesCreatedByStart {

    private static final Logger LOG = LoggerFactory.getLogger(FilesCreatedByStart.class);

    private final List<Path> paths;

    private FilesCreatedByStart(List<Path> paths) {
        this.paths = paths;
    }

    /** The files starting {@code config} would create, as things are now. */
    static FilesCreatedByStart expectedFor(JtargetConfig config) {
        List<Path> paths = new ArrayList<>();
        Path stateDir = config.daemon().stateDir();
        for (BackstoreConfig b : config.backstores()) {
            if (b.type() != BackstoreConfig.Type.FILE || !b.create() || Files.exists(b.path())) {
                continue;
            }
            paths.add(b.path());
            if (b.encrypt() != BackstoreConfig.Encrypt.OFF && stateDir != null
                    && !Files.exists(EncryptingBackstores.keyFile(stateDir, b.name()))) {
                paths.add(EncryptingBackstores.keyFile(stateDir, b.name()));
            }
        }
        return new FilesCreatedByStart(List.copyOf(paths));
    }

    /** The files listed. */
    List<Path> paths() {
        return paths;
    }

    /** Removes those of the files that the failed start created; one log line each. */
    void remove() {
        for (Path p : paths) {
            try {
                if (Files.deleteIfExists(p)) {
                    LOG.info("removed {}: created by the start that failed", p);
                }
            } catch (IOException e) {
                LOG.warn("could not remove {} (created by the start that failed): {}", p, e.toString());
            }
        }
    }
}
