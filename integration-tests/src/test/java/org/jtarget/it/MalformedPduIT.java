package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.Random;
import org.jtarget.initiator.raw.InitiatorPdus;
import org.jtarget.initiator.raw.IscsiOpcodes;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.ProtocolErrorOutcome;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.RawPdu;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Protocol garbage on one connection (RFC 7143 7: answer with a Reject or drop that connection)
 * must not disturb anyone else: a bystander session logged in before the garbage keeps reading
 * its data afterwards, and a new client (libiscsi's iscsi-inq) still gets served.
 *
 * <p>TCP only: most of its garbage is about the TCP byte stream (random bytes, a DataSegmentLength
 * past what follows); over iSER every PDU is one SEND of a known length, and malformed iSER
 * headers and SENDs are the unit tests' ({@code IscsiRdmaTransportTest}, {@code IserCodecsTest}).
 */
class MalformedPduIT {

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension();

    private static final Duration IO_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
    private static final int LUN = DaemonConfig.MEMORY_LUN;
    private static final int BLOCK = 512;
    private static final long BYSTANDER_LBA = 7;

    private static RawIscsiClient bystander;
    private static byte[] bystanderBlock;

    @BeforeAll
    static void loginBystanderAndWriteABlock() throws IOException {
        ClientTool.require("iscsi-inq", "libiscsi-bin");
        bystander = loggedIn("iqn.2026-11.org.jtarget:bystander");
        bystanderBlock = new byte[BLOCK * 2];
        new Random(42).nextBytes(bystanderBlock);
        ScsiResult w = bystander.write10(LUN, BYSTANDER_LBA, bystanderBlock, BLOCK);
        assertThat(w.good()).as("bystander WRITE(10): " + w + "\n" + describe()).isTrue();
    }

    @AfterAll
    static void logoutBystander() throws IOException {
        if (bystander != null) {
            try {
                assertThat(bystander.logout()).as("bystander logout response").isZero();
            } finally {
                bystander.close();
            }
        }
    }

    @BeforeEach
    void othersWorkBefore() throws IOException {
        assertOthersStillServed("before the garbage");
    }

    @Test
    void unknownOpcodeIsRejectedOrDropsOnlyThatConnection() throws IOException {
        try (RawIscsiClient bad = loggedIn("iqn.2026-11.org.jtarget:unknown-opcode")) {
            bad.send(RawPdu.of(IscsiOpcodes.UNASSIGNED_INITIATOR_OPCODE).immediate(true).flags(RawPdu.FINAL_BIT)
                    .itt(0x1234).word24(bad.cmdSn()));

            ProtocolErrorOutcome outcome = bad.awaitRejectOrClose(ANSWER_TIMEOUT);

            assertAnswered(outcome, "an unassigned opcode 0x0f");
            if (outcome.kind() == ProtocolErrorOutcome.Kind.REJECTED) {
                // RFC 7143 11.17: the Reject's data segment carries the rejected PDU's header.
                assertThat(outcome.reject().data()).as("Reject data segment").hasSizeGreaterThanOrEqualTo(48);
                assertThat(outcome.reject().data()[0] & 0x3f).as("opcode in the echoed header")
                        .isEqualTo(IscsiOpcodes.UNASSIGNED_INITIATOR_OPCODE);
            }
        }
        assertOthersStillServed("after an unknown opcode");
    }

    @Test
    void dataSegmentLengthAboveTheLimitIsRefusedOnTheHeader() throws IOException {
        try (RawIscsiClient bad = loggedIn("iqn.2026-11.org.jtarget:huge-segment")) {
            // The header alone: a target that waited for 16 MiB of data before checking would time out here.
            RawPdu cmd = InitiatorPdus.scsiCommand(LUN, 0x2222, bad.cmdSn(), 0, ScsiCdbs.testUnitReady(), false, false,
                    0).dataSegmentLength(RawPdu.MAX_DATA_SEGMENT_LENGTH);
            bad.sendBytes(cmd.bhs());

            ProtocolErrorOutcome outcome = bad.awaitRejectOrClose(ANSWER_TIMEOUT);

            assertAnswered(outcome, "DataSegmentLength " + RawPdu.MAX_DATA_SEGMENT_LENGTH
                    + " (above any MaxRecvDataSegmentLength)");
        }
        assertOthersStillServed("after an oversized DataSegmentLength");
    }

    @Test
    void randomBytesInTheFullFeaturePhaseHurtOnlyThatConnection() throws IOException {
        try (RawIscsiClient bad = loggedIn("iqn.2026-11.org.jtarget:random-bytes")) {
            byte[] junk = new byte[64 * 1024];
            new Random(7).nextBytes(junk);
            junk[0] = (byte) IscsiOpcodes.UNASSIGNED_INITIATOR_OPCODE;
            sendIgnoringReset(bad, junk);
            bad.shutdownOutput();

            ProtocolErrorOutcome outcome = bad.awaitRejectOrClose(ANSWER_TIMEOUT);

            assertAnswered(outcome, "64 KiB of random bytes");
        }
        assertThat(DAEMON.daemon().isAlive()).as("daemon alive\n" + describe()).isTrue();
        assertOthersStillServed("after random bytes");
    }

    @Test
    void garbageInsteadOfALoginIsRefused() throws IOException {
        try (RawIscsiClient bad = RawIscsiClient.connect(DaemonProcess.HOST, DAEMON.daemon().port(), IO_TIMEOUT)) {
            byte[] junk = new byte[48];
            new Random(11).nextBytes(junk);
            junk[0] = (byte) IscsiOpcodes.UNASSIGNED_INITIATOR_OPCODE;
            junk[4] = 0;                          // no AHS
            junk[5] = junk[6] = junk[7] = 0;      // no data segment: the header alone is the whole PDU
            bad.sendBytes(junk);

            ProtocolErrorOutcome outcome = bad.awaitRejectOrClose(ANSWER_TIMEOUT);

            // Before login only a Login Response with an error status, a Reject or a close are acceptable.
            boolean loginRefused = outcome.others().stream().anyMatch(p -> p.opcode() == IscsiOpcodes.LOGIN_RESPONSE
                    && p.u8(RawPdu.STATUS_CLASS_OFFSET) != 0);
            assertThat(outcome.kind() != ProtocolErrorOutcome.Kind.TIMED_OUT || loginRefused)
                    .as("the daemon neither refused nor closed a connection that opened with garbage: " + outcome
                            + "\n" + describe()).isTrue();
            assertThat(outcome.others()).as("no successful login response to garbage")
                    .noneMatch(p -> p.opcode() == IscsiOpcodes.LOGIN_RESPONSE && p.u8(RawPdu.STATUS_CLASS_OFFSET) == 0);
        }
        assertOthersStillServed("after garbage instead of a login");
    }

    // ------------------------------------------------------------------ helpers

    private static RawIscsiClient loggedIn(String initiatorName) throws IOException {
        RawIscsiClient c = RawIscsiClient.connect(DaemonProcess.HOST, DAEMON.daemon().port(), IO_TIMEOUT);
        LoginResult login = c.login(initiatorName, DaemonConfig.IQN);
        if (!login.succeeded()) {
            c.close();
        }
        assertThat(login.succeeded()).as("login of " + initiatorName + ": " + login + "\n" + describe()).isTrue();
        ScsiResult tur = c.testUnitReadyClearingUnitAttention(LUN);
        assertThat(tur.good()).as("TEST UNIT READY after login of " + initiatorName + ": " + tur + "\n" + describe())
                .isTrue();
        return c;
    }

    private static void assertAnswered(ProtocolErrorOutcome outcome, String what) {
        assertThat(outcome.kind()).as("the daemon must answer " + what + " with a Reject or by closing the "
                + "connection within " + ANSWER_TIMEOUT.toSeconds() + " s; got " + outcome + "\n" + describe())
                .isNotEqualTo(ProtocolErrorOutcome.Kind.TIMED_OUT);
    }

    /** The bystander session reads its blocks back, and a brand-new client (iscsi-inq) is served. */
    private static void assertOthersStillServed(String when) throws IOException {
        assertThat(DAEMON.daemon().isAlive()).as("daemon alive " + when + "\n" + describe()).isTrue();
        ScsiResult tur = bystander.testUnitReadyClearingUnitAttention(LUN);
        assertThat(tur.good()).as("bystander TEST UNIT READY " + when + ": " + tur + "\n" + describe()).isTrue();
        ScsiResult read = bystander.read10(LUN, BYSTANDER_LBA, 2, BLOCK);
        assertThat(read.good()).as("bystander READ(10) " + when + ": " + read + "\n" + describe()).isTrue();
        assertThat(read.data()).as("bystander data " + when).isEqualTo(bystanderBlock);
        ClientTool.Result inq = ClientTool.runOk(Duration.ofSeconds(30), MalformedPduIT::describe, "iscsi-inq",
                DAEMON.daemon().url(LUN));
        assertThat(inq.stdout()).as("iscsi-inq " + when + "\n" + inq.describe()).contains("Vendor:JTARGET");
    }

    private static void sendIgnoringReset(RawIscsiClient c, byte[] bytes) {
        try {
            c.sendBytes(bytes);
        } catch (IOException e) {
            // The daemon may drop the connection before reading everything: that is one of the accepted answers.
        }
    }

    private static String describe() {
        return DAEMON.daemon().describe();
    }
}
