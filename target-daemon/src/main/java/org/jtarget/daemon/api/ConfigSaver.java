package org.jtarget.daemon.api;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code POST /save}: the live edits written into the config file. The file's own YAML tree gets
 * the edits (so secret-file names, relative paths and defaults left out stay as they were), is
 * written to a temporary file beside it, flushed to disk, read back by the config loader and
 * compared with the running config, and only then renamed over the file (then the folder is
 * flushed too). Comments and formatting of the old file are lost: the answer says so.
 */
final class ConfigSaver {

    static final String NOTE = "comments and formatting of the earlier file are not kept (the file is written "
            + "from its parsed YAML)";

    private ConfigSaver() {
    }

    /**
     * Writes {@code edits} into {@code file} when the file plus them is {@code running}; refused
     * (409, nothing written) when the file changed in other ways since it was read.
     */
    static Map<String, Object> save(Path file, JtargetConfig running, List<PendingEdit> edits) throws ApiException {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("configFile", file.toString());
        JtargetConfig fromFile = load(file);
        if (sameSettings(fromFile, running)) {
            answer.put("saved", false);
            answer.put("message", "the file already says what the daemon runs");
            return answer;
        }
        JtargetConfig expected = fromFile;
        try {
            for (PendingEdit e : edits) {
                expected = e.applyTo(expected);
            }
        } catch (ConfigException e) {
            throw changedSinceRead(e.getMessage());
        }
        if (!sameSettings(expected, running)) {
            throw changedSinceRead("the file with the live edits is not what runs");
        }
        try {
            write(file, running, edits);
        } catch (IOException e) {
            throw new ApiException(500, "save-failed", "cannot write " + file + ": " + e.getMessage());
        }
        answer.put("saved", true);
        answer.put("edits", edits.size());
        answer.put("note", NOTE);
        return answer;
    }

    private static void write(Path file, JtargetConfig running, List<PendingEdit> edits) throws IOException,
            ApiException {
        Path real = file.toRealPath(); // a symlinked config keeps its link: the target is replaced
        Map<String, Object> tree = new Yaml().load(Files.readString(real, StandardCharsets.UTF_8));
        edits.forEach(e -> e.applyTo(tree));
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        String text = "# Written by jtargetd (POST /api/v1/save) at " + Instant.now() + "; " + NOTE + ".\n"
                + new Yaml(options).dump(tree);
        Path temporary = real.resolveSibling("." + real.getFileName() + ".saving");
        try {
            try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                Files.setPosixFilePermissions(temporary, Files.getPosixFilePermissions(real)); // it may hold secrets
                ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true);
            }
            JtargetConfig written = load(temporary);
            if (!sameSettings(written, running)) {
                throw new ApiException(500, "save-failed", "the file written would not load as the running config; "
                        + real + " is unchanged");
            }
            Files.move(temporary, real, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel folder = FileChannel.open(real.getParent(), StandardOpenOption.READ)) {
                folder.force(true); // the rename itself on disk
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    private static JtargetConfig load(Path file) throws ApiException {
        try {
            return ConfigLoader.load(file);
        } catch (ConfigException e) {
            throw new ApiException(409, "save-refused", "the config file does not load now: " + e.getMessage());
        }
    }

    private static ApiException changedSinceRead(String why) {
        return new ApiException(409, "save-refused", "the config file changed since the daemon read it (" + why
                + "): reload it, or put the live edits into it by hand; nothing was written");
    }

    /** Everything but the file name: what the daemon runs. */
    private static boolean sameSettings(JtargetConfig a, JtargetConfig b) {
        return Objects.equals(a.daemon(), b.daemon()) && a.portals().equals(b.portals())
                && a.backstores().equals(b.backstores()) && a.targets().equals(b.targets())
                && Objects.equals(a.rdma(), b.rdma()) && Objects.equals(a.ha(), b.ha())
                && Objects.equals(a.management(), b.management());
    }
}
