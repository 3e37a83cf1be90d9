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
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.DataPattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, "Our initiator": 256 MiB written over iSER by {@code jtarget-initiator write iser://...}
 * (every byte fetched by the daemon with RDMA READ) and read back over iSER (placed by RDMA WRITE)
 * and over TCP: the SHA-256 of both read-backs equals that of the bytes written. The daemon is
 * the real one, with a TCP and an iSER portal on one file LUN.
 */
class IserDataIntegrityIT {

    private static final String IQN = "iqn.2026-11.org.jtarget:iser-integrity";
    private static final int BLOCK = 512;
    private static final long BYTES = 256L << 20;
    private static final String PATTERN = "random:2615";
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(5);

    @TempDir
    Path dir;

    private DaemonProcess daemon;
    private int port;
    private int iserPort;

    @BeforeEach
    void start() throws IOException {
        port = DaemonProcess.freePort();
        iserPort = DaemonProcess.freePort();
        Path config = DaemonConfig.write(dir, DaemonConfig.daemonAndPortalsYaml(port, iserPort) + """
                backstores:
                  - { name: file0, type: file, path: data/file0.img, size: 300MiB, create: true }
                targets:
                  - iqn: %s
                    portals: [%s]
                    acl: ["*"]
                    luns: [ { lun: 0, backstore: file0 } ]
                """.formatted(IQN, DaemonConfig.targetPortals(iserPort)));
        daemon = DaemonProcess.start(config, port);
    }

    @AfterEach
    void stop() {
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    @Test
    void twoHundredFiftySixMibWrittenOverIserReadBackIdentical() throws Exception {
        String blocks = Long.toString(BYTES / BLOCK);
        String iser = "iser://" + DaemonProcess.HOST + ":" + iserPort + "/" + IQN + "/0";
        String tcp = "iscsi://" + DaemonProcess.HOST + ":" + port + "/" + IQN + "/0";
        ClientTool.Result w = cli("write", iser, "--lba", "0", "--blocks", blocks, "--pattern", PATTERN);
        assertThat(w.exitCode()).as(w.describe()).isZero();

        Path viaIser = dir.resolve("read-iser.bin");
        Path viaTcp = dir.resolve("read-tcp.bin");
        ClientTool.Result r = cli("read", iser, "--lba", "0", "--blocks", blocks, "--out", viaIser.toString());
        assertThat(r.exitCode()).as(r.describe()).isZero();
        ClientTool.Result t = cli("read", tcp, "--lba", "0", "--blocks", blocks, "--out", viaTcp.toString());
        assertThat(t.exitCode()).as(t.describe()).isZero();

        String expected = patternSha256();
        assertThat(Files.size(viaIser)).isEqualTo(BYTES);
        assertThat(sha256(viaIser)).as("read back over iSER").isEqualTo(expected);
        assertThat(sha256(viaTcp)).as("read back over TCP").isEqualTo(expected);
    }

    private ClientTool.Result cli(String... args) {
        Path script = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        String[] cmd = new String[args.length + 1];
        cmd[0] = script.toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        return ClientTool.run(COMMAND_TIMEOUT, () -> daemon.describe(), cmd);
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
