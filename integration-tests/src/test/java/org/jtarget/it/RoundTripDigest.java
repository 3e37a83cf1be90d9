package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.function.Supplier;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.DataPattern;

/**
 * The data integrity check of issues 15 and 16, "Our initiator": {@link #BYTES} of a pattern
 * written by {@code jtarget-initiator write} over an RDMA transport's URL (every byte fetched by the
 * daemon with RDMA READ) and read back over that URL (placed by RDMA WRITE) and over TCP: the
 * SHA-256 of both read-backs must equal that of the bytes written.
 */
final class RoundTripDigest {

    static final int BLOCK = 512;
    static final long BYTES = 256L << 20;
    private static final String PATTERN = "random:2615";
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(5);

    private RoundTripDigest() {
    }

    /**
     * The backstores and targets of the check's daemon, after its daemon and portals sections: one
     * 300 MiB file LUN 0 of target {@code iqn} on {@code portals}, with {@code targetSettings} (YAML
     * lines at the target's indentation, or "") and any initiator.
     */
    static String lunYaml(String iqn, String portals, String targetSettings) {
        return """
                backstores:
                  - { name: file0, type: file, path: data/file0.img, size: 300MiB, create: true }
                targets:
                  - iqn: %s
                    portals: [%s]
                    acl: ["*"]
                    %s
                    luns: [ { lun: 0, backstore: file0 } ]
                """.formatted(iqn, portals, targetSettings);
    }

    /**
     * Writes over {@code url}, reads back over {@code url} and {@code tcp} into files in {@code dir},
     * and checks both digests; {@code daemon} describes the daemon in failure messages.
     */
    static void check(Path dir, String url, String tcp, Supplier<String> daemon) throws Exception {
        String blocks = Long.toString(BYTES / BLOCK);
        ClientTool.Result w = cli(daemon, "write", url, "--lba", "0", "--blocks", blocks, "--pattern", PATTERN);
        assertThat(w.exitCode()).as(w.describe()).isZero();

        Path viaUrl = dir.resolve("read-rdma.bin");
        Path viaTcp = dir.resolve("read-tcp.bin");
        ClientTool.Result r = cli(daemon, "read", url, "--lba", "0", "--blocks", blocks, "--out", viaUrl.toString());
        assertThat(r.exitCode()).as(r.describe()).isZero();
        ClientTool.Result t = cli(daemon, "read", tcp, "--lba", "0", "--blocks", blocks, "--out", viaTcp.toString());
        assertThat(t.exitCode()).as(t.describe()).isZero();

        String expected = patternSha256();
        assertThat(Files.size(viaUrl)).isEqualTo(BYTES);
        assertThat(sha256(viaUrl)).as("read back over " + url).isEqualTo(expected);
        assertThat(sha256(viaTcp)).as("read back over TCP").isEqualTo(expected);
    }

    private static ClientTool.Result cli(Supplier<String> daemon, String... args) {
        Path script = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        String[] cmd = new String[args.length + 1];
        cmd[0] = script.toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        return ClientTool.run(COMMAND_TIMEOUT, daemon, cmd);
    }

    /** SHA-256 of the {@link #BYTES} bytes the pattern makes, as the CLI writes them (one stream). */
    private static String patternSha256() throws CliFailure, IOException, NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        DataPattern pattern = DataPattern.parse(PATTERN);
        byte[] chunk = new byte[1 << 20];
        for (long done = 0; done < BYTES; done += chunk.length) {
            pattern.next(chunk, chunk.length);
            sha.update(chunk);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static String sha256(Path file) throws IOException, NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 20];
            for (int n; (n = in.read(buffer)) > 0; ) {
                sha.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
