package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Store faults against a real daemon (issue 4): a thin file LUN on a full tmpfs answers DATA
 * PROTECT / SPACE ALLOCATION FAILED WRITE PROTECT (SBC-4 4.7.3.6) and keeps what it acknowledged;
 * a deleted or replaced backing file takes its LU offline (NOT READY / LOGICAL UNIT NOT READY,
 * CAUSE NOT REPORTABLE, one ERROR line in the log) while INQUIRY, REPORT LUNS and the other LUNs
 * keep working; {@code daemon.memory-limit} caps a thin memory LUN and UNMAP gives the memory back;
 * a backing file truncated under the daemon (the same inode: a store whose reads fail) answers
 * MEDIUM ERROR / UNRECOVERED READ ERROR past its new end and keeps serving the blocks before it.
 *
 * <p>The daemon is started here rather than by {@link DaemonExtension} because the tmpfs must be
 * mounted before it opens the file (root can mount; without it the ENOSPC test is skipped).
 *
 * <p>The daemon serves a TCP, an iSER and an SRP portal. Each fault is made once (it cannot be
 * undone), seen through a TCP session, and then the same SCSI answers are checked through an iSER
 * session and an SRP channel ({@link ScsiTransport}), where a WRITE's data was fetched by RDMA READ
 * before the store refused it and a failed READ must place nothing. The memory-limit and replaced-file cases stay TCP-only:
 * they count one log line per fault, and the fault is the same whatever the transport.
 */
class StoreFaultIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** The fabrics each fault's answers are checked through after TCP. */
    private static final List<ScsiTransport> RDMA = List.of(ScsiTransport.ISER, ScsiTransport.SRP);
    private static final int BLOCK = 512;
    private static final int ENOSPC_LUN = 0;
    private static final int MEMORY_LUN = 1;
    private static final int DELETED_LUN = 2;
    private static final int REPLACED_LUN = 3;
    private static final int PARTITION_LUN = 5;
    private static final int TRUNCATED_LUN = 4;
    private static final int CHUNK_BLOCKS = 512; // 256 KiB per WRITE(10)
    private static final long MIB_BLOCKS = (1L << 20) / BLOCK;

    private static Path dir;
    private static Path tmpfs;
    private static boolean mounted;
    private static DaemonProcess daemon;
    private static Portals portals;

    @BeforeAll
    static void mountAndStart() throws IOException {
        dir = Files.createTempDirectory("jtarget-it-StoreFaultIT-");
        tmpfs = Files.createDirectories(dir.resolve("tmpfs"));
        ClientTool.Result mount = ClientTool.run(TIMEOUT, () -> "", "mount", "-t", "tmpfs", "-o", "size=8M", "tmpfs",
                tmpfs.toString());
        mounted = mount.exitCode() == 0;
        if (!mounted) {
            System.err.println("StoreFaultIT: cannot mount a tmpfs, the ENOSPC test will be skipped:\n" + mount.describe());
        }
        portals = Portals.free();
        daemon = DaemonProcess.start(DaemonConfig.write(dir, portals.yaml("memory-limit: 16MiB") + """
                backstores:
                  - { name: small-fs, type: file, path: tmpfs/thin.img, size: 64MiB, create: true, thin: true }
                  - { name: ram, type: memory, size: 64MiB, thin: true }
                  - { name: deleted, type: file, path: deleted.img, size: 8MiB, create: true }
                  - { name: replaced, type: file, path: replaced.img, size: 8MiB, create: true }
                  - { name: truncated, type: file, path: truncated.img, size: 64MiB, create: true }
                  - { name: parted, type: file, path: parted.img, size: 8MiB, create: true }
                  - { name: parted-a, type: partition, of: parted, offset: 0, size: 4MiB }
                targets:
                  - iqn: %s
                    portals: [%s]
                    luns:
                      - { lun: 0, backstore: small-fs }
                      - { lun: 1, backstore: ram }
                      - { lun: 2, backstore: deleted }
                      - { lun: 3, backstore: replaced }
                      - { lun: 4, backstore: truncated }
                      - { lun: 5, backstore: parted-a }
                    acl: ["*"]
                %s""".formatted(DaemonConfig.IQN, Portals.TARGET_PORTALS, Portals.TARGET_SRP)), portals.tcp());
    }

    @AfterAll
    static void stopAndUnmount() throws IOException {
        try {
            if (daemon != null) {
                daemon.stopCleanly();
            }
        } finally {
            if (daemon != null && daemon.isAlive()) {
                daemon.kill();
            }
            if (mounted) {
                ClientTool.run(TIMEOUT, () -> "", "umount", "-l", tmpfs.toString());
            }
            if (daemon != null) {
                Path logs = Files.createDirectories(Path.of("target", "daemon-logs"));
                Files.writeString(logs.resolve("StoreFaultIT.log"), daemon.log());
            }
            DaemonExtension.deleteTree(dir);
        }
    }

    private static ScsiClient login(String initiator, int... luns) throws IOException {
        return login(ScsiTransport.TCP, initiator, luns);
    }

    private static ScsiClient login(ScsiTransport transport, String initiator, int... luns) throws IOException {
        ScsiClient c = transport.login(portals.port(transport), "iqn.2026-11.org.jtarget:" + initiator, TIMEOUT);
        for (int lun : luns) {
            assertThat(c.testUnitReadyClearingUnitAttention(lun).good()).as("TUR LUN " + lun).isTrue();
        }
        return c;
    }

    private static byte[] data(long lba, int blocks) {
        byte[] b = new byte[blocks * BLOCK];
        new Random(lba).nextBytes(b);
        return b;
    }

    private static void assertSense(ScsiResult r, int key, int asc, int ascq, String what) {
        assertThat(r.status()).as(what + ": " + r + "\n" + daemon.describe()).isEqualTo(ScsiResult.CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.additionalSenseCode(), r.additionalSenseCodeQualifier()})
                .as(what + ": " + r).containsExactly(key, asc, ascq);
    }

    private static long logLines(String text) {
        return daemon.log().lines().filter(l -> l.contains(text)).count();
    }

    @Test
    void fullFileSystemUnderAThinFileLunIsSpaceAllocationFailedAndWrittenDataStays() throws IOException {
        assumeTrue(mounted, "mount -t tmpfs is not permitted here");
        try (ScsiClient c = login("enospc", ENOSPC_LUN, MEMORY_LUN)) {
            long lba = 0;
            ScsiResult failed = null;
            for (; lba < 64 * MIB_BLOCKS; lba += CHUNK_BLOCKS) {
                ScsiResult w = c.write10(ENOSPC_LUN, lba, data(lba, CHUNK_BLOCKS), BLOCK);
                if (!w.good()) {
                    failed = w;
                    break;
                }
            }
            assertThat(failed).as("a write fails before 64 MiB on an 8 MiB tmpfs").isNotNull();
            assertSense(failed, 0x07, 0x27, 0x07, "WRITE(10) at " + lba + " on the full tmpfs");
            assertThat(lba).as("some data fit first").isGreaterThanOrEqualTo(4 * MIB_BLOCKS);

            long lastGood = lba - CHUNK_BLOCKS;
            assertThat(c.read10(ENOSPC_LUN, 0, CHUNK_BLOCKS, BLOCK).data()).isEqualTo(data(0, CHUNK_BLOCKS));
            assertThat(c.read10(ENOSPC_LUN, lastGood, CHUNK_BLOCKS, BLOCK).data())
                    .as("the last acknowledged write").isEqualTo(data(lastGood, CHUNK_BLOCKS));
            assertThat(c.write10(ENOSPC_LUN, 0, data(0, CHUNK_BLOCKS), BLOCK).good())
                    .as("rewriting allocated blocks needs no space").isTrue();
            assertThat(c.testUnitReady(MEMORY_LUN).good()).as("another LUN answers").isTrue();
            assertThat(c.read10(MEMORY_LUN, 0, 8, BLOCK).good()).isTrue();
            assertThat(c.testUnitReady(ENOSPC_LUN).good()).as("the full LUN stays online").isTrue();
            c.logout();

            for (ScsiTransport rdma : RDMA) {
                try (ScsiClient i = login(rdma, "enospc-" + rdma, ENOSPC_LUN)) {
                    assertSense(i.write10(ENOSPC_LUN, lba, data(lba, CHUNK_BLOCKS), BLOCK), 0x07, 0x27, 0x07,
                            "[" + rdma + "] WRITE(10) at " + lba + " on the full tmpfs");
                    assertThat(i.read10(ENOSPC_LUN, lastGood, CHUNK_BLOCKS, BLOCK).data())
                            .as("[%s] the last acknowledged write", rdma).isEqualTo(data(lastGood, CHUNK_BLOCKS));
                    assertThat(i.write10(ENOSPC_LUN, 0, data(0, CHUNK_BLOCKS), BLOCK).good())
                            .as("[%s] rewriting allocated blocks needs no space", rdma).isTrue();
                    i.logout();
                }
            }
        }
    }

    @Test
    void deletedBackingFileTakesItsLunOfflineAndTheOthersKeepServing() throws IOException {
        try (ScsiClient c = login("deleted", DELETED_LUN, MEMORY_LUN)) {
            assertThat(c.write10(DELETED_LUN, 0, data(0, 8), BLOCK).good()).isTrue();
            Files.delete(dir.resolve("deleted.img"));
            // the write cache cannot be made stable any more: SYNCHRONIZE CACHE finds the file gone
            assertSense(c.synchronizeCache(DELETED_LUN), 0x02, 0x04, 0x00, "SYNCHRONIZE CACHE after delete");
            assertDeletedLunOfflineAndTheOthersServing(c);
            for (ScsiTransport rdma : RDMA) {
                try (ScsiClient i = login(rdma, "deleted-" + rdma, MEMORY_LUN)) {
                    i.testUnitReadyClearingUnitAttention(DELETED_LUN); // the new nexus's UNIT ATTENTION comes first
                    assertDeletedLunOfflineAndTheOthersServing(i);
                    i.logout();
                }
            }
            assertThat(logLines("LUN 2: backstore deleted is gone")).as("one ERROR line for the operator\n"
                    + daemon.describe()).isEqualTo(1);
            assertThat(daemon.log()).contains(dir.resolve("deleted.img").toString());
            c.logout();
        }
    }

    private static void assertDeletedLunOfflineAndTheOthersServing(ScsiClient c) throws IOException {
        assertSense(c.testUnitReady(DELETED_LUN), 0x02, 0x04, 0x00, "TEST UNIT READY");
        assertSense(c.read10(DELETED_LUN, 0, 8, BLOCK), 0x02, 0x04, 0x00, "READ(10)");
        assertSense(c.write10(DELETED_LUN, 0, data(0, 8), BLOCK), 0x02, 0x04, 0x00, "WRITE(10)");
        assertSense(c.write10(DELETED_LUN, 0, data(0, CHUNK_BLOCKS), BLOCK), 0x02, 0x04, 0x00, "WRITE(10) of 256 KiB");
        assertThat(c.inquiry(DELETED_LUN, false, 0, 96).good()).as("INQUIRY still served").isTrue();
        assertThat(c.execute(DELETED_LUN, new byte[] {(byte) 0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, 256).good())
                .as("REPORT LUNS still served").isTrue();
        assertThat(c.testUnitReady(MEMORY_LUN).good()).as("the memory LUN is unaffected").isTrue();
        assertThat(c.read10(MEMORY_LUN, 0, 8, BLOCK).good()).isTrue();
    }

    @Test
    void backingFileReplacedByAnotherIsFoundWithoutAnyIoError() throws IOException, InterruptedException {
        try (ScsiClient c = login("replaced", REPLACED_LUN)) {
            Path other = Files.write(dir.resolve("other.img"), new byte[8 << 20]);
            Files.move(other, dir.resolve("replaced.img"), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
            // only the periodic check can see this (reads still succeed through the old inode)
            ScsiResult tur = turUntilNotGood(c, REPLACED_LUN);
            assertSense(tur, 0x02, 0x04, 0x00, "TEST UNIT READY after the file was replaced");
            assertSense(c.read10(REPLACED_LUN, 0, 8, BLOCK), 0x02, 0x04, 0x00, "READ(10)");
            assertThat(logLines("LUN 3: backstore replaced is gone")).as(daemon.describe()).isEqualTo(1);
            assertThat(daemon.log()).contains("replaced.img was replaced by another file");
            c.logout();
        }
    }

    @Test
    void aPartitionGoesOfflineWhenTheFileItLivesInIsReplaced() throws IOException, InterruptedException {
        try (ScsiClient c = login("partition", PARTITION_LUN)) {
            Path other = Files.write(dir.resolve("other-parted.img"), new byte[8 << 20]);
            Files.move(other, dir.resolve("parted.img"), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
            ScsiResult tur = turUntilNotGood(c, PARTITION_LUN);
            assertSense(tur, 0x02, 0x04, 0x00, "TEST UNIT READY after the partition's file was replaced");
            assertThat(logLines("LUN 5: backstore parted-a is gone")).as(daemon.describe()).isEqualTo(1);
            c.logout();
        }
    }

    /** TEST UNIT READY until it is not GOOD (only the daemon's 2 s file watch can change it), for at most 20 s. */
    private static ScsiResult turUntilNotGood(ScsiClient c, int lun) throws IOException, InterruptedException {
        ScsiResult tur = c.testUnitReady(lun);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (tur.good() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            tur = c.testUnitReady(lun);
        }
        return tur;
    }

    @Test
    void memoryLimitCapsAThinMemoryLunAndUnmapGivesMemoryBack() throws IOException {
        try (ScsiClient c = login("memory", MEMORY_LUN)) {
            int i = 0;
            ScsiResult failed = null;
            for (; i < 64; i++) { // one new 1 MiB chunk per write
                ScsiResult w = c.write10(MEMORY_LUN, i * MIB_BLOCKS, data(i, CHUNK_BLOCKS), BLOCK);
                if (!w.good()) {
                    failed = w;
                    break;
                }
            }
            assertThat(failed).as("writing past 16 MiB of distinct chunks fails").isNotNull();
            assertThat(i).as("exactly 16 chunks of 1 MiB fit the 16 MiB limit").isEqualTo(16);
            assertSense(failed, 0x07, 0x27, 0x07, "WRITE(10) past memory-limit");
            assertThat(c.read10(MEMORY_LUN, 15 * MIB_BLOCKS, CHUNK_BLOCKS, BLOCK).data()).isEqualTo(data(15, CHUNK_BLOCKS));

            assertThat(c.unmap(MEMORY_LUN, 0, (int) (4 * MIB_BLOCKS)).good()).as("UNMAP 4 MiB").isTrue();
            for (int j = 16; j < 20; j++) {
                assertThat(c.write10(MEMORY_LUN, j * MIB_BLOCKS, data(j, CHUNK_BLOCKS), BLOCK).good())
                        .as("write %d after UNMAP", j).isTrue();
            }
            assertSense(c.write10(MEMORY_LUN, 20 * MIB_BLOCKS, data(20, CHUNK_BLOCKS), BLOCK), 0x07, 0x27, 0x07,
                    "the budget is full again");
            assertThat(c.read10(MEMORY_LUN, 19 * MIB_BLOCKS, CHUNK_BLOCKS, BLOCK).data()).isEqualTo(data(19, CHUNK_BLOCKS));
            assertThat(c.read10(MEMORY_LUN, 0, CHUNK_BLOCKS, BLOCK).data()).containsOnly((byte) 0);
            assertThat(logLines("daemon.memory-limit 16777216 bytes reached")).as(daemon.describe()).isEqualTo(1);
            assertThat(c.unmap(MEMORY_LUN, 0, (int) (64 * MIB_BLOCKS)).good()).isTrue();
            c.logout();
        }
    }

    private static void assertTruncatedLunReadsAMediumErrorPastItsEnd(ScsiClient c) throws IOException {
        assertSense(c.read10(TRUNCATED_LUN, 2 * MIB_BLOCKS, 8, BLOCK), 0x03, 0x11, 0x00, "READ past the new end");
        assertSense(c.read10(TRUNCATED_LUN, MIB_BLOCKS - 4, 8, BLOCK), 0x03, 0x11, 0x00, "READ across the new end");
        assertSense(c.read10(TRUNCATED_LUN, 64 * MIB_BLOCKS - 1, 1, BLOCK), 0x03, 0x11, 0x00, "READ of the last LBA");
        ScsiResult before = c.read10(TRUNCATED_LUN, MIB_BLOCKS - CHUNK_BLOCKS, CHUNK_BLOCKS, BLOCK);
        assertThat(before.good()).as("READ before the new end: " + before).isTrue();
        assertThat(before.data()).isEqualTo(data(MIB_BLOCKS - CHUNK_BLOCKS, CHUNK_BLOCKS));
        assertThat(c.testUnitReady(TRUNCATED_LUN).good()).as("the LU stays online").isTrue();
        assertThat(c.testUnitReady(MEMORY_LUN).good()).as("another LUN answers").isTrue();
        assertThat(c.read10(MEMORY_LUN, 0, 8, BLOCK).good()).isTrue();
    }

    /**
     * {@code truncate -s 1M} of a served 64 MiB file (same inode, so the vanished-file watch stays
     * quiet): READs past the new end are MEDIUM ERROR / UNRECOVERED READ ERROR 03/11/00 (SPC-4
     * Annex D), also one straddling it, never zeros; READs before it keep their data; the LU stays
     * online, the connection lives, the other LUNs answer, one WARN line. A WRITE past the new end
     * is GOOD and extends the file again (pwrite; the gap reads as zeros): accepted, since it is
     * what an initiator rewriting lost blocks wants.
     */
    @Test
    void truncatedBackingFileIsAMediumErrorPastItsNewEnd() throws IOException {
        try (ScsiClient c = login("truncated", TRUNCATED_LUN, MEMORY_LUN)) {
            for (long lba = 0; lba < 4 * MIB_BLOCKS; lba += CHUNK_BLOCKS) {
                assertThat(c.write10(TRUNCATED_LUN, lba, data(lba, CHUNK_BLOCKS), BLOCK).good()).isTrue();
            }
            assertThat(c.synchronizeCache(TRUNCATED_LUN).good()).isTrue();
            Path file = dir.resolve("truncated.img");
            ClientTool.Result t = ClientTool.run(TIMEOUT, daemon::describe, "truncate", "-s", "1M", file.toString());
            assertThat(t.exitCode()).as(t.describe()).isZero();
            assertThat(Files.size(file)).isEqualTo(1L << 20);

            assertTruncatedLunReadsAMediumErrorPastItsEnd(c);
            for (ScsiTransport rdma : RDMA) {
                try (ScsiClient i = login(rdma, "truncated-" + rdma, TRUNCATED_LUN, MEMORY_LUN)) {
                    assertTruncatedLunReadsAMediumErrorPastItsEnd(i);
                    i.logout();
                }
            }

            long lba = 3 * MIB_BLOCKS;
            assertThat(c.write10(TRUNCATED_LUN, lba, data(lba + 1, CHUNK_BLOCKS), BLOCK).good())
                    .as("WRITE past the new end").isTrue();
            assertThat(Files.size(file)).as("the write extended the file").isEqualTo(lba * BLOCK + CHUNK_BLOCKS * BLOCK);
            assertThat(c.read10(TRUNCATED_LUN, lba, CHUNK_BLOCKS, BLOCK).data()).isEqualTo(data(lba + 1, CHUNK_BLOCKS));
            assertThat(c.read10(TRUNCATED_LUN, 2 * MIB_BLOCKS, 8, BLOCK).data()).as("the gap reads as zeros")
                    .containsOnly((byte) 0);
            assertSense(c.read10(TRUNCATED_LUN, 4 * MIB_BLOCKS, 8, BLOCK), 0x03, 0x11, 0x00, "READ past the end again");

            assertThat(logLines("backstore truncated: file store truncated: read failed")).as("one WARN line\n"
                    + daemon.describe()).isEqualTo(1);
            assertThat(daemon.log()).contains("WARN").contains(file + " at byte").doesNotContain("truncated is gone");
            c.logout();
        }
    }
}
