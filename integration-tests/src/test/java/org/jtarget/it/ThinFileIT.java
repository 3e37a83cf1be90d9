package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A thin file LUN (`thin: true`): UNMAP really frees space in the backing file (`du` shrinks) and
 * the unmapped blocks read back as zeros, while the blocks around them keep their data.
 */
class ThinFileIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String IQN = "iqn.2026-11.org.jtarget:thin";
    private static final int BLOCK = 512;
    private static final int CHUNK_BLOCKS = 256; // 128 KiB per WRITE(10)
    private static final int WRITTEN_BLOCKS = 16384; // 8 MiB

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension(port -> """
                portals:
                  - name: default
                    listen: 127.0.0.1:%d
                backstores:
                  - { name: thin0, type: file, path: thin.img, size: 64MiB, create: true, thin: true }
                targets:
                  - iqn: %s
                    portals: [default]
                    luns:
                      - { lun: 0, backstore: thin0 }
                    acl: ["*"]
                """.formatted(port, IQN));

    /** Allocated bytes of the backing file, as `du` counts them. */
    private static long du() {
        ClientTool.Result r = ClientTool.run(TIMEOUT, () -> DAEMON.daemon().describe(), "du", "--block-size=1",
                DAEMON.daemon().dir().resolve("thin.img").toString());
        assertThat(r.exitCode()).as(r.describe()).isZero();
        return Long.parseLong(r.stdout().trim().split("\\s+")[0]);
    }

    /** UNMAP (SBC-4 5.32) with one block descriptor. */
    private static ScsiResult unmap(RawIscsiClient c, long lba, int blocks) throws IOException {
        ByteBuffer list = ByteBuffer.allocate(24);
        list.putShort((short) 22).putShort((short) 16).putInt(0); // data length, descriptor data length
        list.putLong(lba).putInt(blocks).putInt(0);
        byte[] cdb = new byte[10];
        cdb[0] = 0x42;
        cdb[8] = 24; // PARAMETER LIST LENGTH
        return c.execute(0, cdb, list.array());
    }

    @Test
    void unmapFreesSpaceInTheFileAndTheBlocksReadAsZeros() throws IOException {
        try (RawIscsiClient c = RawIscsiClient.connect(DaemonProcess.HOST, DAEMON.daemon().port(), TIMEOUT)) {
            LoginResult login = c.login("iqn.2026-11.org.jtarget:thin-it", IQN);
            assertThat(login.succeeded()).as(login + "\n" + DAEMON.daemon().describe()).isTrue();
            assertThat(c.testUnitReadyClearingUnitAttention(0).good()).isTrue();
            byte[] chunk = new byte[CHUNK_BLOCKS * BLOCK];
            new Random(7).nextBytes(chunk);
            for (int lba = 0; lba < WRITTEN_BLOCKS; lba += CHUNK_BLOCKS) {
                ScsiResult w = c.write10(0, lba, chunk, BLOCK);
                assertThat(w.good()).as("WRITE(10) at " + lba + ": " + w).isTrue();
            }
            assertThat(c.execute(0, new byte[] {0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0).good())
                    .as("SYNCHRONIZE CACHE").isTrue();
            long before = du();
            assertThat(before).as("allocated after writing 8 MiB").isGreaterThanOrEqualTo(8L << 20);

            ScsiResult u = unmap(c, 2048, 8192); // 4 MiB in the middle
            assertThat(u.good()).as("UNMAP: " + u + "\n" + DAEMON.daemon().describe()).isTrue();

            long after = du();
            assertThat(before - after).as("du shrinks by the unmapped 4 MiB (before %d, after %d)", before, after)
                    .isGreaterThanOrEqualTo(4L << 20);
            ScsiResult zeros = c.read10(0, 2048, 256, BLOCK);
            assertThat(zeros.data()).as("unmapped blocks read as zeros").containsOnly((byte) 0);
            ScsiResult tail = c.read10(0, 10240, 1, BLOCK);
            assertThat(tail.data()).as("the block after the hole keeps its data")
                    .isEqualTo(Arrays.copyOfRange(chunk, 0, BLOCK));
            assertThat(c.logout()).isZero();
        }
    }
}
