package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jtarget.initiator.raw.InitiatorPdus;
import org.jtarget.initiator.raw.IscsiOpcodes;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.RawPdu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A file LUN with {@code queue-depth: 4} under far more concurrent commands than that: several
 * sessions each pipeline as many WRITE(10)/READ(10) as the target's MaxCmdSN allows (the raw
 * client sends them without waiting for answers), so most commands wait for the LU. Every
 * command must end GOOD (no TASK SET FULL or BUSY for initiators that respect MaxCmdSN), MaxCmdSN
 * must never go back, the data must read back as written, and the daemon must keep serving.
 *
 * <p>TCP only: the raw client pipelines hand-made SCSI Command PDUs, and over iSER a READ's PDU
 * must name its data buffer in the iSER header, which only {@code RawIscsiClient.execute} (one
 * command at a time) does; three iSER sessions would also not fit the test daemon's 6 MiB arena.
 */
class QueueDepthIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String IQN = "iqn.2026-11.org.jtarget:qdepth";
    private static final int BLOCK = 512;
    private static final int BLOCKS_PER_IO = 8; // 4 KiB, sent as immediate data
    private static final int SESSIONS = 3;
    private static final int IOS_PER_SESSION = 600;
    private static final int STATUS_BIT = 0x01;

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension(port -> """
                portals:
                  - name: default
                    listen: 127.0.0.1:%d
                backstores:
                  - { name: file0, type: file, path: qd.img, size: 64MiB, create: true, write-cache: false }
                targets:
                  - iqn: %s
                    portals: [default]
                    luns:
                      - { lun: 0, backstore: file0, queue-depth: 4 }
                    acl: ["*"]
                """.formatted(port, IQN));

    /** What one session saw. */
    record Outcome(int good, List<String> bad, int lowestCredit, boolean maxCmdSnWentBack) {
    }

    @Test
    void manyPipelinedCommandsFromSeveralSessionsAllCompleteOnASmallQueueDepth() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
        try {
            List<Future<Outcome>> writes = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                int session = s;
                writes.add(pool.submit(() -> pipeline(session, true)));
            }
            assertOutcomes(writes);
            List<Future<Outcome>> reads = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                int session = s;
                reads.add(pool.submit(() -> pipeline(session, false)));
            }
            assertOutcomes(reads);
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        try (RawIscsiClient c = RawIscsiClient.connect(DaemonProcess.HOST, DAEMON.daemon().port(), TIMEOUT)) {
            assertThat(c.login("iqn.2026-11.org.jtarget:qd-after", IQN).succeeded()).isTrue();
            assertThat(c.testUnitReadyClearingUnitAttention(0).good()).as("still serving").isTrue();
            assertThat(c.logout()).isZero();
        }
        assertThat(DAEMON.daemon().isAlive()).as(DAEMON.daemon().describe()).isTrue();
    }

    private static void assertOutcomes(List<Future<Outcome>> futures) throws Exception {
        for (Future<Outcome> f : futures) {
            Outcome o = f.get(3, TimeUnit.MINUTES);
            System.out.println("QueueDepthIT session: " + o.good() + " GOOD, lowest CmdSN credit seen "
                    + o.lowestCredit());
            assertThat(o.bad()).as(DAEMON.daemon().describe()).isEmpty();
            assertThat(o.good()).isEqualTo(IOS_PER_SESSION);
            assertThat(o.maxCmdSnWentBack()).as("MaxCmdSN never decreases (RFC 7143 4.2.2.1)").isFalse();
        }
    }

    /** Content of block run {@code index} of {@code session}: recognisable and distinct. */
    private static byte[] pattern(int session, int index) {
        ByteBuffer b = ByteBuffer.allocate(BLOCKS_PER_IO * BLOCK);
        while (b.hasRemaining()) {
            b.putInt(session * 1_000_003 + index * 31 + b.position());
        }
        return b.array();
    }

    private static long lba(int session, int index) {
        return ((long) session * IOS_PER_SESSION + index) * BLOCKS_PER_IO;
    }

    private static byte[] rw10(int opcode, long lba) {
        byte[] cdb = new byte[10];
        cdb[0] = (byte) opcode;
        ByteBuffer.wrap(cdb).putInt(2, (int) lba).putShort(7, (short) BLOCKS_PER_IO);
        return cdb;
    }

    /**
     * One session: sends commands while CmdSN is within MaxCmdSN, reads answers as they come.
     * Writes carry their data as immediate data (no R2T), reads come back in one Data-In.
     */
    private static Outcome pipeline(int session, boolean write) throws IOException {
        try (RawIscsiClient c = RawIscsiClient.connect(DaemonProcess.HOST, DAEMON.daemon().port(), TIMEOUT)) {
            Map<String, String> keys = RawIscsiClient.defaultOperationalKeys();
            keys.put("ImmediateData", "Yes");
            LoginResult login = c.login("iqn.2026-11.org.jtarget:qd-" + session, IQN, keys);
            assertThat(login.succeeded()).as(login.toString()).isTrue();
            assertThat(c.testUnitReadyClearingUnitAttention(0).good()).isTrue();
            int cmdSn = c.cmdSn();
            int maxCmdSn = c.maxCmdSn();
            int lowestCredit = Integer.MAX_VALUE;
            boolean wentBack = false;
            Map<Integer, Integer> byItt = new HashMap<>();
            List<String> bad = new ArrayList<>();
            int sent = 0;
            int good = 0;
            int ended = 0;
            while (ended < IOS_PER_SESSION) {
                while (sent < IOS_PER_SESSION && cmdSn - maxCmdSn <= 0) {
                    int itt = 0x10000 + sent;
                    long lba = lba(session, sent);
                    RawPdu cmd = InitiatorPdus.scsiCommand(0, itt, cmdSn, 0,
                            rw10(write ? 0x2A : 0x28, lba), !write, write, BLOCKS_PER_IO * BLOCK);
                    if (write) {
                        cmd.data(pattern(session, sent));
                    }
                    c.send(cmd);
                    byItt.put(itt, sent);
                    cmdSn++;
                    sent++;
                }
                lowestCredit = Math.min(lowestCredit, maxCmdSn - cmdSn + 1);
                RawPdu pdu = c.readPdu();
                assertThat(pdu).as("connection closed").isNotNull();
                if (c.maxCmdSn() - maxCmdSn < 0) {
                    wentBack = true;
                } else {
                    maxCmdSn = c.maxCmdSn();
                }
                Integer index = byItt.remove(pdu.itt());
                if (pdu.opcode() == IscsiOpcodes.NOP_IN && pdu.word20() != RawPdu.RESERVED_TAG) {
                    c.send(InitiatorPdus.nopOut(RawPdu.RESERVED_TAG, pdu.word20(), cmdSn, 0, true));
                    continue;
                }
                if (index == null) {
                    if (pdu.opcode() != IscsiOpcodes.NOP_IN && pdu.opcode() != IscsiOpcodes.ASYNC_MESSAGE) {
                        bad.add("unexpected " + pdu);
                    }
                    continue;
                }
                ended++;
                int status = pdu.u8(3);
                boolean withStatus = pdu.opcode() == IscsiOpcodes.SCSI_RESPONSE
                        || (pdu.opcode() == IscsiOpcodes.SCSI_DATA_IN && (pdu.flags() & STATUS_BIT) != 0);
                if (!withStatus || status != 0) {
                    bad.add("itt 0x" + Integer.toHexString(pdu.itt()) + ": " + pdu + " status 0x"
                            + Integer.toHexString(status));
                } else if (!write && !Arrays.equals(pdu.data(), pattern(session, index))) {
                    bad.add("block run " + index + " of session " + session + " reads back wrong");
                } else {
                    good++;
                }
            }
            return new Outcome(good, bad, lowestCredit, wentBack);
        }
    }
}
