package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A thin file LUN (`thin: true`): UNMAP really frees space in the backing file (`du` shrinks) and
 * the unmapped blocks read back as zeros, while the blocks around them keep their data; GET LBA
 * STATUS reports the hole as deallocated and the data around it as mapped, to the block. Over TCP,
 * over iSER and over SRP ({@link ScsiTransport}), each later run writing and unmapping the same
 * blocks again.
 */
class ThinFileIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int BLOCK = 512;
    private static final int CHUNK_BLOCKS = 256; // 128 KiB per WRITE(10)
    private static final int WRITTEN_BLOCKS = 16384; // 8 MiB

    @RegisterExtension
    static final DaemonExtension DAEMON = DaemonExtension.withRdmaPortals(portals -> portals.yaml() + """
                backstores:
                  - { name: thin0, type: file, path: thin.img, size: 64MiB, create: true, thin: true }
                targets:
                  - iqn: %s
                    portals: [%s]
                    luns:
                      - { lun: 0, backstore: thin0 }
                    acl: ["*"]
                %s""".formatted(DaemonConfig.IQN, Portals.TARGET_PORTALS, Portals.TARGET_SRP));

    /** Allocated bytes of the backing file, as `du` counts them. */
    private static long du() {
        ClientTool.Result r = ClientTool.run(TIMEOUT, () -> DAEMON.daemon().describe(), "du", "--block-size=1",
                DAEMON.daemon().dir().resolve("thin.img").toString());
        assertThat(r.exitCode()).as(r.describe()).isZero();
        return Long.parseLong(r.stdout().trim().split("\\s+")[0]);
    }

    /** GET LBA STATUS (SBC-4 5.7: SERVICE ACTION IN(16) 9Eh, service action 12h) from {@code lba}. */
    private static ScsiResult getLbaStatus(ScsiClient c, long lba, int allocationLength) throws IOException {
        ByteBuffer cdb = ByteBuffer.allocate(16);
        cdb.put((byte) 0x9E).put((byte) 0x12).putLong(lba).putInt(allocationLength);
        return c.execute(0, cdb.array(), allocationLength);
    }

    /** The LBA status descriptors as "LBA+BLOCKS status" (status: mapped, deallocated or the number). */
    private static List<String> descriptors(ScsiResult r) {
        assertThat(r.good()).as("GET LBA STATUS: " + r + "\n" + DAEMON.daemon().describe()).isTrue();
        ByteBuffer b = ByteBuffer.wrap(r.data());
        int parameterDataLength = b.getInt(0);
        assertThat((parameterDataLength - 4) % 16).as("PARAMETER DATA LENGTH %d", parameterDataLength).isZero();
        List<String> rows = new ArrayList<>();
        for (int at = 8; at < 4 + parameterDataLength; at += 16) {
            int status = b.get(at + 12) & 0x0F;
            rows.add(b.getLong(at) + "+" + Integer.toUnsignedLong(b.getInt(at + 8)) + " "
                    + (status == 0 ? "mapped" : status == 1 ? "deallocated" : Integer.toString(status)));
        }
        return rows;
    }

    /**
     * 4 MiB written at LBA 32768, then 1020 KiB unmapped at LBA 34824 (4 KiB aligned: the file
     * system's allocation unit, VPD B0h granularity 8): GET LBA STATUS from the start of the data
     * lists mapped 32768+2056, deallocated 34824+2040, mapped 36864+4096, then the never-written
     * rest of the LUN deallocated; started inside the hole, it begins at that LBA.
     */
    @ParameterizedTest(name = "[{0}] GET LBA STATUS: the unmapped range deallocated, the data around it mapped")
    @EnumSource(ScsiTransport.class)
    void getLbaStatusReportsTheUnmappedRangeAsDeallocatedAndTheDataAroundItAsMapped(ScsiTransport transport)
            throws IOException {
        try (ScsiClient c = transport.login(DAEMON, "iqn.2026-11.org.jtarget:thin-lba-status", TIMEOUT)) {
            assertThat(c.testUnitReadyClearingUnitAttention(0).good()).isTrue();
            byte[] chunk = new byte[CHUNK_BLOCKS * BLOCK];
            new Random(11).nextBytes(chunk);
            for (int lba = 32768; lba < 40960; lba += CHUNK_BLOCKS) {
                assertThat(c.write10(0, lba, chunk, BLOCK).good()).as("WRITE(10) at " + lba).isTrue();
            }
            assertThat(c.synchronizeCache(0).good()).isTrue();
            assertThat(descriptors(getLbaStatus(c, 32768, 8 + 16 * 4)))
                    .as("before UNMAP").startsWith("32768+8192 mapped");

            ScsiResult u = c.unmap(0, 34824, 2040);
            assertThat(u.good()).as("UNMAP: " + u + "\n" + DAEMON.daemon().describe()).isTrue();

            assertThat(descriptors(getLbaStatus(c, 32768, 8 + 16 * 4))).containsExactly(
                    "32768+2056 mapped", "34824+2040 deallocated", "36864+4096 mapped",
                    "40960+" + (131072 - 40960) + " deallocated");
            assertThat(descriptors(getLbaStatus(c, 35000, 8 + 16 * 2))).as("from inside the hole").containsExactly(
                    "35000+" + (36864 - 35000) + " deallocated", "36864+4096 mapped");
            assertThat(c.read10(0, 34824, 8, BLOCK).data()).containsOnly((byte) 0);
            assertThat(c.read10(0, 34816, 8, BLOCK).data()).as("the 4 KiB before the hole (a chunk's start)")
                    .isEqualTo(Arrays.copyOfRange(chunk, 0, 8 * BLOCK));
            c.logout();
        }
    }

    @ParameterizedTest(name = "[{0}] UNMAP frees space in the file and the blocks read as zeros")
    @EnumSource(ScsiTransport.class)
    void unmapFreesSpaceInTheFileAndTheBlocksReadAsZeros(ScsiTransport transport) throws IOException {
        try (ScsiClient c = transport.login(DAEMON, "iqn.2026-11.org.jtarget:thin-it", TIMEOUT)) {
            assertThat(c.testUnitReadyClearingUnitAttention(0).good()).isTrue();
            byte[] chunk = new byte[CHUNK_BLOCKS * BLOCK];
            new Random(7).nextBytes(chunk);
            for (int lba = 0; lba < WRITTEN_BLOCKS; lba += CHUNK_BLOCKS) {
                ScsiResult w = c.write10(0, lba, chunk, BLOCK);
                assertThat(w.good()).as("WRITE(10) at " + lba + ": " + w).isTrue();
            }
            assertThat(c.synchronizeCache(0).good())
                    .as("SYNCHRONIZE CACHE").isTrue();
            long before = du();
            assertThat(before).as("allocated after writing 8 MiB").isGreaterThanOrEqualTo(8L << 20);

            ScsiResult u = c.unmap(0, 2048, 8192); // 4 MiB in the middle
            assertThat(u.good()).as("UNMAP: " + u + "\n" + DAEMON.daemon().describe()).isTrue();

            long after = du();
            assertThat(before - after).as("du shrinks by the unmapped 4 MiB (before %d, after %d)", before, after)
                    .isGreaterThanOrEqualTo(4L << 20);
            ScsiResult zeros = c.read10(0, 2048, 256, BLOCK);
            assertThat(zeros.data()).as("unmapped blocks read as zeros").containsOnly((byte) 0);
            ScsiResult tail = c.read10(0, 10240, 1, BLOCK);
            assertThat(tail.data()).as("the block after the hole keeps its data")
                    .isEqualTo(Arrays.copyOfRange(chunk, 0, BLOCK));
            c.logout();
        }
    }
}
