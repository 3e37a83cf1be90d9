package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, live resize: a real daemon serves a file store (LUN 0) and a memory store (LUN 1) of
 * 4 MiB; the config file says 8 MiB and SIGHUP reloads it while a session is logged in. That
 * session gets CAPACITY DATA HAS CHANGED (06/2A/09) once on each LUN, then READ CAPACITY (16)
 * shows the new size, the blocks written before are intact, the new ones read as zeros and take
 * writes, and the image file is 8 MiB. A file that then says 2 MiB is refused with one line naming
 * {@code backstores[0].size}, and nothing changes: same capacity, no unit attention.
 */
class LiveResizeIT {

    private static final String INITIATOR = "iqn.2026-11.org.jtarget:resize-it";
    private static final int BLOCK = 512;
    private static final String CONFIG = """
            %sbackstores:
              - { name: disk, type: file, path: disk.img, size: %s, create: true }
              - { name: ram, type: memory, size: %s }
            targets:
              - iqn: %s
                portals: [%s]
                acl: ["*"]
                luns:
                  - { lun: 0, backstore: disk }
                  - { lun: 1, backstore: ram }
            """;

    @TempDir
    Path dir;

    private DaemonProcess daemon;

    @AfterEach
    void stop() {
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    private static String config(int port, String size) {
        return CONFIG.formatted(DaemonConfig.portalsYaml(port, 0), size, size, DaemonConfig.IQN,
                DaemonConfig.targetPortals(0));
    }

    @Test
    void aGrownStoreIsAnnouncedOnceAndServesItsNewBlocksAndAShrinkChangesNothing() throws Exception {
        int port = DaemonProcess.freePort();
        Path config = DaemonConfig.write(dir, config(port, "4MiB"));
        daemon = DaemonProcess.start(config, port);
        byte[] before = new byte[8 * BLOCK];
        new Random(18).nextBytes(before);
        try (RawIscsiClient c = RawIscsiClient.connect("127.0.0.1", port, Duration.ofSeconds(30))) {
            LoginResult login = c.login(INITIATOR, DaemonConfig.IQN);
            assertThat(login.succeeded()).as(login + "\n" + daemon.describe()).isTrue();
            for (int lun = 0; lun < 2; lun++) {
                assertThat(c.testUnitReadyClearingUnitAttention(lun).good()).isTrue();
                assertThat(c.write10(lun, 8184, before, BLOCK).good()).as("the last 8 blocks of 4 MiB").isTrue();
            }

            Files.writeString(config, config(port, "8MiB"));
            daemon.signal("HUP");
            daemon.await("config reloaded", () -> daemon.log().contains("config reloaded"), Duration.ofSeconds(20));
            assertThat(daemon.log()).contains("backstore disk grown to 8MiB", "backstore ram grown to 8MiB");

            for (int lun = 0; lun < 2; lun++) {
                ScsiResult told = c.testUnitReady(lun);
                assertThat(SenseText.of(told)).as("LUN " + lun + ": " + told).isEqualTo("06/2A/09");
                assertThat(c.testUnitReady(lun).good()).as("LUN " + lun + ": told once").isTrue();
                assertThat(readCapacity16(c, lun)).containsExactly(16383, BLOCK);
                assertThat(c.read10(lun, 8184, 8, BLOCK).data()).as("data written before").isEqualTo(before);
                assertThat(c.read10(lun, 8192, 64, BLOCK).data()).as("new blocks").isEqualTo(new byte[64 * BLOCK]);
                assertThat(c.write10(lun, 16376, before, BLOCK).good()).as("the new last blocks").isTrue();
                assertThat(c.read10(lun, 16376, 8, BLOCK).data()).isEqualTo(before);
            }
            assertThat(Files.size(dir.resolve("disk.img"))).isEqualTo(8L << 20);

            Files.writeString(config, config(port, "2MiB"));
            daemon.signal("HUP");
            daemon.await("reload refused", () -> daemon.log().contains("reload refused"), Duration.ofSeconds(20));
            String refusal = daemon.log().lines().filter(l -> l.contains("reload refused")).findFirst().orElseThrow();
            assertThat(refusal).contains("backstores[0].size: 2MiB is smaller than the running 8MiB");
            for (int lun = 0; lun < 2; lun++) {
                assertThat(c.testUnitReady(lun).good()).as("LUN " + lun + ": nothing to tell").isTrue();
                assertThat(readCapacity16(c, lun)).containsExactly(16383, BLOCK);
                assertThat(c.read10(lun, 16376, 8, BLOCK).data()).isEqualTo(before);
            }
            assertThat(Files.size(dir.resolve("disk.img"))).isEqualTo(8L << 20);
            assertThat(c.logout()).isZero();
        }
    }

    /** READ CAPACITY (16): {RETURNED LOGICAL BLOCK ADDRESS, LOGICAL BLOCK LENGTH IN BYTES}. */
    private long[] readCapacity16(RawIscsiClient c, int lun) throws IOException {
        ScsiResult r = c.execute(lun, ScsiCdbs.readCapacity16(32), 32);
        assertThat(r.good()).as("READ CAPACITY (16): " + r + "\n" + daemon.describe()).isTrue();
        ByteBuffer b = ByteBuffer.wrap(r.data());
        return new long[] {b.getLong(0), b.getInt(8) & 0xFFFF_FFFFL};
    }
}
