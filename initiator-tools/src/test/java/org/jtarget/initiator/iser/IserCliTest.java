package org.jtarget.initiator.iser;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jtarget.initiator.cli.CliRun;
import org.jtarget.initiator.cli.TransportCliTest;
import org.jtarget.initiator.raw.InitiatorPdus;
import org.jtarget.initiator.raw.IscsiOpcodes;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.RawPdu;
import org.junit.jupiter.api.Test;

/**
 * {@code jtarget-initiator ... iser://} against the daemon's runtime in this process, with a TCP
 * and an iSER portal on one memory LUN: every command works over iSER, and what one transport
 * wrote the other reads back (the same LUN, the same session logic, another transport:
 * {@link TransportCliTest}); and the iSER channel's own ways (a logout answer read though the
 * target disconnects at once, the driven loop).
 */
class IserCliTest extends TransportCliTest {

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

    IserCliTest() {
        super(TARGET);
    }

    private static final int LOGOUT_TAG = 0x10000;
    private static final long DISCONNECT_WAIT_MILLIS = 500;

    @Override
    protected String config(int tcpPort, int portalPort) {
        return CONFIG.formatted(tcpPort, portalPort, TARGET);
    }

    @Override
    protected String url(int portalPort) {
        return "iser://127.0.0.1:" + portalPort + "/" + TARGET + "/0";
    }

    @Test
    void digestsAreAUsageErrorOverIser() {
        CliRun r = run("inquiry", url, "--digests");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--digests is not valid with an iser:// URL");
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
        try (RawIscsiClient client = RawIscsiClient.over(IserChannel.connect("127.0.0.1", portalPort,
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
        RawIscsiClient client = RawIscsiClient.over(IserChannel.connect("127.0.0.1", portalPort, Duration.ofSeconds(10),
                slots, 4096));
        assertThat(client.login("iqn.2026-11.org.jtarget:iser-driven", TARGET).succeeded()).isTrue();
        return client;
    }
}
