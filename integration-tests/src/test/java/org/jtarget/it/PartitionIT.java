package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jtarget.fabric.srp.iu.SrpLoginReject;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.jtarget.initiator.srp.SrpLoginRefused;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One backing file carved into three partitions served by two targets with different ACLs
 * (issue 4): qemu-img writes distinct random data to the two writable partitions, each reads back
 * by SHA-256, and the file holds each partition's bytes at its configured offset; the read-only
 * partition answers DATA PROTECT to WRITE; an initiator outside a target's ACL cannot log in to it;
 * sibling partitions report their own sizes and serial numbers. The raw client cases run over TCP,
 * over iSER and over SRP ({@link ScsiTransport}): each target is also an SRP target port of its own
 * ({@link #SRP_A}, {@link #SRP_B}), and each ACL lists its initiator's iSCSI name and the SRP
 * initiator port {@link ScsiTransport#srpPort} makes of it.
 *
 * <pre>
 * file0.img  0        16 MiB                 48 MiB    56 MiB    64 MiB
 *            | part-a | part-b               | part-ro | (unused) |
 *            target A   target B              target A
 *            LUN 0      LUN 0                 LUN 1 (read-only)
 * </pre>
 */
class PartitionIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String IQN_A = "iqn.2026-11.org.jtarget:part-a";
    private static final String IQN_B = "iqn.2026-11.org.jtarget:part-b";
    private static final String ALPHA = "iqn.2026-11.org.client:alpha";
    private static final String BETA = "iqn.2026-11.org.client:beta";
    /** The SRP target ports of targets A and B. */
    private static final String SRP_A = DaemonConfig.SRP_TARGET_PORT;
    private static final String SRP_B = "0x0123456789abcdef00a0b1c2d3e4f502";
    private static final long MIB = 1L << 20;
    private static final long A_OFFSET = 0;
    private static final long A_BYTES = 16 * MIB;
    private static final long B_OFFSET = 16 * MIB;
    private static final long B_BYTES = 32 * MIB;
    private static final long RO_BYTES = 8 * MIB;
    private static final int BLOCK = 512;

    @RegisterExtension
    static final DaemonExtension DAEMON = DaemonExtension.withRdmaPortals(portals -> portals.yaml() + """
                backstores:
                  - { name: file0, type: file, path: file0.img, size: 64MiB, create: true }
                  - { name: part-a, type: partition, of: file0, offset: 0, size: 16MiB }
                  - { name: part-b, type: partition, of: file0, offset: 16MiB, size: 32MiB }
                  - { name: part-ro, type: partition, of: file0, offset: 48MiB, size: 8MiB }
                targets:
                  - iqn: %s
                    portals: [%s]
                    %s
                    luns:
                      - { lun: 0, backstore: part-a }
                      - { lun: 1, backstore: part-ro, read-only: true }
                    acl: [%s, "%s"]
                  - iqn: %s
                    portals: [%s]
                    %s
                    luns:
                      - { lun: 0, backstore: part-b }
                    acl: [%s, "%s"]
                """.formatted(IQN_A, Portals.TARGET_PORTALS, DaemonConfig.srpSetting(SRP_A), ALPHA,
                    ScsiTransport.srpPort(ALPHA).name(), IQN_B, Portals.TARGET_PORTALS, DaemonConfig.srpSetting(SRP_B),
                    BETA, ScsiTransport.srpPort(BETA).name()));

    @Test
    void eachPartitionKeepsItsOwnDataAtItsOffsetInTheFile() throws Exception {
        ClientTool.requireQemuImgWithIscsi();
        Path dir = DAEMON.daemon().dir();
        Path imageA = dir.resolve("a-in.img");
        Path imageB = dir.resolve("b-in.img");
        String shaA = Images.writeRandom(imageA, A_BYTES, 41);
        String shaB = Images.writeRandom(imageB, B_BYTES, 42);
        assertThat(shaA).isNotEqualTo(shaB);

        qemuImg("convert", "-n", "-f", "raw", imageA.toString(), "--target-image-opts", iscsiOpts(IQN_A, ALPHA));
        qemuImg("convert", "-n", "-f", "raw", imageB.toString(), "--target-image-opts", iscsiOpts(IQN_B, BETA));

        assertThat(readBackSha256(IQN_A, ALPHA, dir.resolve("a-out.img"), A_BYTES))
                .as("SHA-256 of part-a read back over iSCSI").isEqualTo(shaA);
        assertThat(readBackSha256(IQN_B, BETA, dir.resolve("b-out.img"), B_BYTES))
                .as("SHA-256 of part-b read back over iSCSI").isEqualTo(shaB);

        Path file = dir.resolve("file0.img");
        assertThat(Files.size(file)).isEqualTo(64 * MIB);
        assertThat(Images.sha256Range(file, A_OFFSET, A_BYTES)).as("file0.img [0, 16 MiB) holds part-a").isEqualTo(shaA);
        assertThat(Images.sha256Range(file, B_OFFSET, B_BYTES)).as("file0.img [16 MiB, 48 MiB) holds part-b").isEqualTo(shaB);
        assertThat(Images.sha256Range(file, B_OFFSET + B_BYTES, RO_BYTES)).as("part-ro, never written, is still zeros")
                .isEqualTo(Images.sha256Zeros(RO_BYTES));
    }

    @ParameterizedTest(name = "[{0}] the read-only partition answers DATA PROTECT to WRITE")
    @EnumSource(ScsiTransport.class)
    void readOnlyPartitionAnswersDataProtectToWrite(ScsiTransport transport) throws IOException {
        try (ScsiClient c = login(transport, ALPHA, IQN_A)) {
            assertThat(c.testUnitReadyClearingUnitAttention(1).good()).isTrue();
            ScsiResult w = c.write10(1, 0, new byte[BLOCK], BLOCK);
            assertThat(w.status()).as("WRITE(10) to the read-only partition: " + w).isEqualTo(ScsiResult.CHECK_CONDITION);
            assertThat(w.senseKey()).as("DATA PROTECT").isEqualTo(0x07);
            assertThat(w.additionalSenseCode()).as("WRITE PROTECTED").isEqualTo(0x27);
            assertThat(c.read10(1, 0, 1, BLOCK).good()).as("reads still work").isTrue();
            c.logout();
        }
    }

    @ParameterizedTest(name = "[{0}] an initiator outside a target's ACL cannot log in to its partition")
    @EnumSource(ScsiTransport.class)
    void anInitiatorOutsideATargetsAclCannotLogInToItsPartition(ScsiTransport transport) throws IOException {
        assertRefused(transport, ALPHA, IQN_B);
        assertRefused(transport, BETA, IQN_A);
        try (ScsiClient c = login(transport, BETA, IQN_B)) {
            c.logout();
        }
    }

    /**
     * Target A over {@code transport}, target B over TCP: the test daemon's pinned arena (6 MiB
     * under the usual 8 MiB memlock limit) holds one iSER connection (an SRP channel takes about
     * 1.3 MiB of it).
     */
    @ParameterizedTest(name = "[{0}] sibling partitions report their own size and serial number")
    @EnumSource(ScsiTransport.class)
    void siblingPartitionsReportTheirOwnSizeAndSerialNumber(ScsiTransport transport) throws IOException {
        try (ScsiClient a = login(transport, ALPHA, IQN_A); ScsiClient b = login(ScsiTransport.TCP, BETA, IQN_B)) {
            a.testUnitReadyClearingUnitAttention(0);
            a.testUnitReadyClearingUnitAttention(1);
            b.testUnitReadyClearingUnitAttention(0);
            assertThat(blocks(a, 0)).isEqualTo(A_BYTES / BLOCK);
            assertThat(blocks(a, 1)).isEqualTo(RO_BYTES / BLOCK);
            assertThat(blocks(b, 0)).isEqualTo(B_BYTES / BLOCK);
            String serialA = a.unitSerialNumber(0);
            String serialRo = a.unitSerialNumber(1);
            String serialB = b.unitSerialNumber(0);
            assertThat(serialA).isNotBlank().isNotEqualTo(serialB).isNotEqualTo(serialRo);
            assertThat(serialB).isNotEqualTo(serialRo);
            a.logout();
            b.logout();
        }
    }

    /** Target {@code target} (over SRP its SRP target port) over {@code transport} as {@code initiator}. */
    private static ScsiClient login(ScsiTransport transport, String initiator, String target) throws IOException {
        return transport.login(DAEMON.port(transport), initiator, target, srpTargetPort(target), TIMEOUT);
    }

    private static String srpTargetPort(String target) {
        return target.equals(IQN_A) ? SRP_A : SRP_B;
    }

    /**
     * Over iSCSI, RFC 7143 11.13.5: status class 2 (initiator error), detail 02h (authorization
     * failure). Over SRP, r16a 6.4: SRP_LOGIN_REJ "unable to establish RDMA channel", the reason for
     * an unknown target port too, so the daemon's WARN line must name the target it found: the
     * refusal is its ACL's.
     */
    private static void assertRefused(ScsiTransport transport, String initiator, String target) throws IOException {
        if (transport == ScsiTransport.SRP) {
            assertThatThrownBy(() -> login(transport, initiator, target).close()).as(initiator + " -> " + target)
                    .isInstanceOfSatisfying(SrpLoginRefused.class, e -> assertThat(e.reason()).as(e.getMessage())
                            .isEqualTo(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL));
            assertThat(DAEMON.daemon().log()).contains("initiator port " + ScsiTransport.srpPort(initiator).name()
                    + ", target port " + srpTargetPort(target) + " (" + target + ")");
            return;
        }
        try (RawIscsiClient c = transport.iscsi().connect(DAEMON.port(transport), TIMEOUT)) {
            LoginResult r = c.login(initiator, target);
            assertThat(r.succeeded()).as(initiator + " -> " + target + ": " + r).isFalse();
            assertThat(r.statusClass()).as(r.toString()).isEqualTo(2);
            assertThat(r.statusDetail()).as(r.toString()).isEqualTo(0x02);
        }
    }

    /** READ CAPACITY (10) (SBC-4 5.20): the returned last LBA + 1. */
    private static long blocks(ScsiClient c, int lun) throws IOException {
        ScsiResult r = c.execute(lun, new byte[] {0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 8);
        assertThat(r.good()).as("READ CAPACITY(10) LUN " + lun + ": " + r).isTrue();
        return (ByteBuffer.wrap(r.data()).getInt(0) & 0xFFFFFFFFL) + 1;
    }

    /** QEMU's iscsi block driver options, with the initiator name the ACL checks. */
    private static String iscsiOpts(String target, String initiator) {
        return "driver=iscsi,transport=tcp,portal=" + DaemonProcess.HOST + ":" + DAEMON.daemon().port()
                + ",target=" + target + ",lun=0,initiator-name=" + initiator;
    }

    private static String readBackSha256(String target, String initiator, Path out, long bytes) throws Exception {
        try {
            qemuImg("convert", "-O", "raw", "--image-opts", iscsiOpts(target, initiator), out.toString());
            assertThat(Files.size(out)).as("bytes read back from " + target).isEqualTo(bytes);
            return Images.sha256Range(out, 0, bytes);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static void qemuImg(String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "qemu-img";
        System.arraycopy(args, 0, cmd, 1, args.length);
        ClientTool.runOk(TIMEOUT, () -> DAEMON.daemon().describe(), cmd);
    }
}
