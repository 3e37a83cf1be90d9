package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code jtarget-initiator} must do over every transport beside iSCSI/TCP, checked against the
 * daemon's runtime in this process with a TCP portal and the transport's portal on one 8 MiB
 * memory LUN: every command works, and what one transport wrote the other reads back (the same
 * LUN, the same SCSI commands, another transport). A subclass gives the config and the URL.
 */
public abstract class TransportCliTest {

    private final String iqn;

    /** The LUN's bytes, as readcap reports them. */
    protected static final long LUN_BYTES = 8L << 20;

    @TempDir
    protected Path dir;

    private InProcessTarget target;
    /** The transport's port; the LU's URL over it, and over TCP. */
    protected int portalPort;
    protected String url;
    protected String tcp;

    /** @param iqn the target's name, for the TCP portal's URL */
    protected TransportCliTest(String iqn) {
        this.iqn = iqn;
    }

    /** The daemon's YAML: a TCP portal on {@code tcpPort}, the transport's on {@code portalPort}, one {@link #LUN_BYTES} memory LUN 0. */
    protected abstract String config(int tcpPort, int portalPort);

    /** LUN 0's URL over the transport's portal on {@code portalPort}. */
    protected abstract String url(int portalPort);

    @BeforeEach
    void startTarget() throws Exception {
        int tcpPort = InProcessTarget.freePort();
        portalPort = InProcessTarget.freePort();
        target = InProcessTarget.start(dir, config(tcpPort, portalPort));
        url = url(portalPort);
        tcp = "iscsi://127.0.0.1:" + tcpPort + "/" + iqn + "/0";
    }

    @AfterEach
    void stopTarget() {
        if (target != null) {
            target.close();
        }
    }

    protected static CliRun run(String... args) {
        return CliRun.run(args);
    }

    @Test
    void inquiryAndReadcapMatchTcp() {
        CliRun inquiry = run("inquiry", url);
        assertThat(inquiry.code()).as(inquiry.err()).isZero();
        assertThat(inquiry.out()).contains("JTARGET").isEqualTo(run("inquiry", tcp).out());
        CliRun serial = run("inquiry", url, "--vpd", "0x80");
        assertThat(serial.code()).as(serial.err()).isZero();
        assertThat(serial.out()).isEqualTo(run("inquiry", tcp, "--vpd", "0x80").out());
        CliRun readcap = run("readcap", url);
        assertThat(readcap.code()).as(readcap.err()).isZero();
        assertThat(readcap.out()).isEqualTo(run("readcap", tcp).out()).contains("Bytes: " + LUN_BYTES);
    }

    @Test
    void writeReadAndVerifyMatchWhatTcpSees() throws Exception {
        // 3 MiB and a bit from LBA 7: four 1 MiB commands, the last one short
        String blocks = "" + ((3 << 20) / 512 + 5);
        CliRun w = run("write", url, "--lba", "7", "--blocks", blocks, "--pattern", "random:15");
        assertThat(w.code()).as(w.err()).isZero();
        assertThat(run("verify", url, "--lba", "7", "--blocks", blocks, "--pattern", "random:15").code()).isZero();
        assertThat(run("verify", tcp, "--lba", "7", "--blocks", blocks, "--pattern", "random:15").code()).isZero();
        CliRun wrong = run("verify", url, "--lba", "7", "--blocks", blocks, "--pattern", "random:16");
        assertThat(wrong.code()).isEqualTo(CliFailure.MISCOMPARE);
        assertThat(wrong.err()).contains("miscompare at byte offset 0");

        Path viaUrl = dir.resolve("url.bin");
        Path viaTcp = dir.resolve("tcp.bin");
        assertThat(run("read", url, "--lba", "7", "--blocks", blocks, "--out", viaUrl.toString()).code()).isZero();
        assertThat(run("read", tcp, "--lba", "7", "--blocks", blocks, "--out", viaTcp.toString()).code()).isZero();
        assertThat(Files.size(viaUrl)).isEqualTo(Long.parseLong(blocks) * 512);
        assertThat(Files.mismatch(viaUrl, viaTcp)).isEqualTo(-1);
    }

    @Test
    void benchAndCrashcheckRun() throws Exception {
        CliRun bench = run("bench", "--url", url, "--qd", "4", "--bs", "64k", "--rw", "randrw", "--seconds", "1",
                "--ramp", "0", "--blocks", "4096");
        assertThat(bench.code()).as(bench.err() + bench.out()).isZero();
        assertThat(bench.out()).contains("read: IOPS=").contains("write: IOPS=").contains("errors=0");

        Path journal = dir.resolve("journal");
        CliRun write = run("crashcheck", "write", "--url", url, "--journal", journal.toString(), "--seconds", "1",
                "--blocks", "256");
        assertThat(write.code()).as(write.err() + write.out()).isZero();
        CliRun verify = run("crashcheck", "verify", "--url", url, "--journal", journal.toString());
        assertThat(verify.code()).as(verify.err() + verify.out()).isZero();
        assertThat(verify.out()).contains(" 0 lost");
    }
}
