package org.jtarget.initiator.iser;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.daemon.TargetRuntime;
import org.jtarget.initiator.cli.CliRun;
import org.jtarget.initiator.raw.InitiatorPdus;
import org.jtarget.initiator.raw.IscsiOpcodes;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.RawPdu;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jtarget-initiator ... iser://} against the daemon's runtime in this process, with a TCP
 * and an iSER portal on one memory LUN: every command works over iSER, and what one transport
 * wrote the other reads back (the same LUN, the same session logic, another transport).
 */
class IserCliTest {

    private static final String TARGET = "iqn.2026-11.org.jtarget:iser-cli";
    private static final String CONFIG = """
            daemon: { buffer-pool: { pinned-size: 6MiB, pin: true } }
            portals:
              - { name: tcp, listen: "127.0.0.1:%d" }
              - { name: rdma, listen: "127.0.0.1:%d", portal-group-tag: 2, transport: iser }
            backstores:
              - { name: ram0, type: memory, size: 8MiB }
            targets:
              - iqn: %s
                portals: [tcp, rdma]
                acl: ["*"]
                luns: [ { lun: 0, backstore: ram0 } ]
            """;

    @TempDir
    Path dir;

    private static final int LOGOUT_TAG = 0x10000;
    private static final long DISCONNECT_WAIT_MILLIS = 500;

    private TargetRuntime runtime;
    private int iserPort;
    private String iser;
    private String tcp;

    @BeforeEach
    void start() throws Exception {
        int tcpPort = freePort();
        iserPort = freePort();
        Path file = Files.writeString(dir.resolve("jtarget.yaml"), CONFIG.formatted(tcpPort, iserPort, TARGET));
        runtime = new TargetRuntime(ConfigLoader.load(file));
        try {
            runtime.start();
        } catch (ConfigException e) {
            // registered memory must be mlocked (DESIGN 3): a memlock limit below the arena cannot run this
            Assumptions.assumeFalse(e.getMessage().contains("not pinned"), "mlock refused: " + e.getMessage());
            throw e;
        }
        iser = "iser://127.0.0.1:" + iserPort + "/" + TARGET + "/0";
        tcp = "iscsi://127.0.0.1:" + tcpPort + "/" + TARGET + "/0";
    }

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.stop(Duration.ofSeconds(5));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static CliRun run(String... args) {
        return CliRun.run(args);
    }

    @Test
    void inquiryAndReadcapOverIser() {
        CliRun inquiry = run("inquiry", iser);
        assertThat(inquiry.code()).as(inquiry.err()).isZero();
        assertThat(inquiry.out()).contains("JTARGET").isEqualTo(run("inquiry", tcp).out());
        CliRun vpd = run("inquiry", iser, "--vpd", "0x80");
        assertThat(vpd.code()).as(vpd.err()).isZero();
        CliRun readcap = run("readcap", iser);
        assertThat(readcap.code()).as(readcap.err()).isZero();
        assertThat(readcap.out()).isEqualTo(run("readcap", tcp).out()).contains("Bytes: 8388608");
    }

    @Test
    void writeReadAndVerifyOverIserMatchWhatTcpSees() throws Exception {
        // 3 MiB and a bit from LBA 7: four 1 MiB commands, the last one short
        String blocks = "" + ((3 << 20) / 512 + 5);
        CliRun w = run("write", iser, "--lba", "7", "--blocks", blocks, "--pattern", "random:15");
        assertThat(w.code()).as(w.err()).isZero();
        assertThat(run("verify", iser, "--lba", "7", "--blocks", blocks, "--pattern", "random:15").code()).isZero();
        assertThat(run("verify", tcp, "--lba", "7", "--blocks", blocks, "--pattern", "random:15").code()).isZero();
        CliRun wrong = run("verify", iser, "--lba", "7", "--blocks", blocks, "--pattern", "random:16");
        assertThat(wrong.code()).isEqualTo(1);

        Path viaIser = dir.resolve("iser.bin");
        Path viaTcp = dir.resolve("tcp.bin");
        assertThat(run("read", iser, "--lba", "7", "--blocks", blocks, "--out", viaIser.toString()).code()).isZero();
        assertThat(run("read", tcp, "--lba", "7", "--blocks", blocks, "--out", viaTcp.toString()).code()).isZero();
        assertThat(Files.size(viaIser)).isEqualTo(Long.parseLong(blocks) * 512);
        assertThat(Files.mismatch(viaIser, viaTcp)).isEqualTo(-1);
    }

    @Test
    void digestsAreAUsageErrorOverIser() {
        CliRun r = run("inquiry", iser, "--digests");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--digests is not valid with an iser:// URL");
    }

    @Test
    void benchAndCrashcheckRunOverIser() throws Exception {
        CliRun bench = run("bench", "--url", iser, "--qd", "4", "--bs", "64k", "--rw", "randrw", "--seconds", "1",
                "--ramp", "0", "--blocks", "4096");
        assertThat(bench.code()).as(bench.err() + bench.out()).isZero();
        assertThat(bench.out()).contains("read").contains("write");

        Path journal = dir.resolve("journal");
        CliRun write = run("crashcheck", "write", "--url", iser, "--journal", journal.toString(), "--seconds", "1",
                "--blocks", "256");
        assertThat(write.code()).as(write.err() + write.out()).isZero();
        CliRun verify = run("crashcheck", "verify", "--url", iser, "--journal", journal.toString());
        assertThat(verify.code()).as(verify.err() + verify.out()).isZero();
        assertThat(verify.out()).contains(" 0 lost");
    }

    /**
     * The target sends the Logout Response and disconnects at once: when the client polls only
     * after both, the response's receive and the flushed receives of the disconnect complete in one
     * poll, and the response must still be read (it was taken for the end of the connection:
     * "target closed the connection while waiting for the answer to Logout", seen in the
     * integration tests over iSER).
     */
    @Test
    void aLogoutResponseFollowedByTheDisconnectIsStillRead() throws IOException, InterruptedException {
        try (RawIscsiClient client = RawIscsiClient.over(IserChannel.connect("127.0.0.1", iserPort,
                Duration.ofSeconds(10), 1, 4096))) {
            assertThat(client.login("iqn.2026-11.org.jtarget:iser-logout", TARGET).succeeded()).isTrue();
            client.send(InitiatorPdus.logoutRequest(LOGOUT_TAG, 0, client.cmdSn(), 0));
            Thread.sleep(DISCONNECT_WAIT_MILLIS); // the response arrives and the target disconnects: nobody polls yet

            RawPdu response = client.readPdu();

            assertThat(response).as("the Logout Response, not the end of the connection").isNotNull();
            assertThat(response.opcode()).isEqualTo(IscsiOpcodes.LOGOUT_RESPONSE);
            assertThat(response.itt()).isEqualTo(LOGOUT_TAG);
            assertThat(client.readPdu()).as("then the end of the connection").isNull();
        }
    }

    private static final int PINGS = 4;

    /**
     * The driven mode bench uses: the step runs on the connection's I/O thread, not the caller's,
     * again as answers arrive, until it says it is done; every PDU it sent there is answered.
     */
    @Test
    void aDrivenLoopRunsOnTheConnectionsThreadUntilItsStepIsDone() throws IOException {
        try (RawIscsiClient client = loggedIn(PINGS)) {
            List<Integer> answered = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            int[] turns = {0};
            client.driven().drive(() -> {
                threads.add(Thread.currentThread());
                if (turns[0]++ == 0) {
                    for (int i = 0; i < PINGS; i++) {
                        client.send(InitiatorPdus.nopOut(i + 1, RawPdu.RESERVED_TAG, client.cmdSn(), 0, true));
                    }
                }
                for (RawPdu pdu = client.pollPdu(); pdu != null; pdu = client.pollPdu()) {
                    answered.add(pdu.itt());
                }
                return answered.size() == PINGS;
            });

            assertThat(answered).containsExactly(1, 2, 3, 4);
            assertThat(threads).doesNotContain(Thread.currentThread()).containsOnly(threads.getFirst());
            assertThat(turns[0]).as("a first turn that found nothing, then turns as answers came").isGreaterThan(1);
            assertThat(client.ping().opcode()).as("blocking reads work again after").isEqualTo(IscsiOpcodes.NOP_IN);
        }
    }

    @Test
    void aDrivenLoopEndsWithEofWhenTheTargetClosesAfterTheLastPdu() throws IOException {
        try (RawIscsiClient client = loggedIn(1)) {
            List<Integer> seen = new ArrayList<>();
            boolean[] sent = {false};
            assertThatThrownBy(() -> client.driven().drive(() -> {
                if (!sent[0]) {
                    sent[0] = true;
                    client.send(InitiatorPdus.logoutRequest(LOGOUT_TAG, 0, client.cmdSn(), 0));
                }
                for (RawPdu pdu = client.pollPdu(); pdu != null; pdu = client.pollPdu()) {
                    seen.add(pdu.opcode());
                }
                return false;
            })).isInstanceOf(EOFException.class);
            assertThat(seen).containsExactly(IscsiOpcodes.LOGOUT_RESPONSE);
        }
    }

    @Test
    void aDrivenLoopWaitingForNothingTimesOut() throws IOException {
        try (RawIscsiClient client = loggedIn(1)) {
            client.readTimeout(Duration.ofMillis(300));

            assertThatThrownBy(() -> client.driven().drive(() -> client.pollPdu() != null))
                    .isInstanceOf(SocketTimeoutException.class);
        }
    }

    private RawIscsiClient loggedIn(int slots) throws IOException {
        RawIscsiClient client = RawIscsiClient.over(IserChannel.connect("127.0.0.1", iserPort, Duration.ofSeconds(10),
                slots, 4096));
        assertThat(client.login("iqn.2026-11.org.jtarget:iser-driven", TARGET).succeeded()).isTrue();
        return client;
    }
}
