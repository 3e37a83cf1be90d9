package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.jtarget.initiator.raw.InitiatorPdus;
import org.jtarget.initiator.raw.IscsiDigest;
import org.jtarget.initiator.raw.IscsiOpcodes;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.ProtocolErrorOutcome;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.RawPdu;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * HeaderDigest and DataDigest CRC32C end to end with our raw initiator (libiscsi always offers
 * {@code None,CRC32C} and so never gets a digest from a target that honours the initiator's order).
 * RFC 7143 7.8: a data digest error is answered with a Reject (reason 0x02) and the connection
 * lives on; a header digest error at ErrorRecoveryLevel 0 costs the connection, and only it.
 *
 * <p>TCP only: iSER carries no iSCSI digests (RFC 7145; open-iscsi never uses a header digest over
 * iSER either), and our initiator refuses to offer them on an iSER connection.
 */
class DigestIT {

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension();

    private static final Duration IO_TIMEOUT = Duration.ofSeconds(10);
    private static final int LUN = DaemonConfig.MEMORY_LUN;
    private static final int BLOCK = 512;
    private static final int LENGTH = 64 * 1024;
    private static final int ABORTED_COMMAND = 0x0b;
    private static final int PROTOCOL_SERVICE_CRC_ERROR_ASC = 0x47;
    private static final int PROTOCOL_SERVICE_CRC_ERROR_ASCQ = 0x05;

    @Test
    void bothDigestsNegotiatedAndDataSurvivesWriteAndReadWithR2t() throws IOException {
        try (RawIscsiClient c = loggedIn("iqn.2026-11.org.jtarget:digest-r2t", false)) {
            byte[] data = random(1, LENGTH);

            ScsiResult w = c.write10(LUN, 100, data, BLOCK);
            ScsiResult r = c.read10(LUN, 100, LENGTH / BLOCK, BLOCK);

            assertThat(w.good()).as("WRITE(10) with digests: " + w + "\n" + describe()).isTrue();
            assertThat(r.good()).as("READ(10) with digests: " + r + "\n" + describe()).isTrue();
            assertThat(r.data()).as("data read back").isEqualTo(data);
            assertThat(c.dataDigestRejects()).isEmpty();
            assertThat(c.logout()).isZero();
        }
    }

    @Test
    void immediateDataWithDigests() throws IOException {
        try (RawIscsiClient c = loggedIn("iqn.2026-11.org.jtarget:digest-immediate", true)) {
            assertThat(c.negotiated()).as("ImmediateData").containsEntry("ImmediateData", "Yes");
            byte[] data = random(2, LENGTH);

            ScsiResult w = c.write10(LUN, 300, data, BLOCK);
            ScsiResult r = c.read10(LUN, 300, LENGTH / BLOCK, BLOCK);

            assertThat(w.good()).as("WRITE(10) with immediate data: " + w + "\n" + describe()).isTrue();
            assertThat(r.data()).as("data read back").isEqualTo(data);
        }
    }

    @Test
    void corruptDataOutIsRejectedAndItsTaskEndsWithProtocolServiceCrcError() throws IOException {
        try (RawIscsiClient c = loggedIn("iqn.2026-11.org.jtarget:digest-bad-data-out", false)) {
            byte[] before = random(3, LENGTH);
            byte[] after = random(4, LENGTH);
            assertThat(c.write10(LUN, 500, before, BLOCK).good()).isTrue();

            c.corruptNext(IscsiOpcodes.SCSI_DATA_OUT, IscsiDigest.Kind.DATA);
            ScsiResult failed = c.write10(LUN, 500, after, BLOCK);

            // RFC 7143 7.8 at ErrorRecoveryLevel 0: Reject 0x02, then CHECK CONDITION ABORTED COMMAND 47/05
            assertThat(c.dataDigestRejects()).as("Reject for the corrupt Data-Out\n" + describe()).hasSize(1);
            RawPdu reject = c.dataDigestRejects().getFirst();
            assertThat(reject.u8(2)).as("reason: Data (payload) Digest Error").isEqualTo(0x02);
            assertThat(reject.data()[0] & 0x3f).as("echoed opcode").isEqualTo(IscsiOpcodes.SCSI_DATA_OUT);
            assertThat(failed.status()).as("status of the write whose data was lost: " + failed)
                    .isEqualTo(ScsiResult.CHECK_CONDITION);
            assertThat(failed.senseKey()).isEqualTo(ABORTED_COMMAND);
            assertThat(failed.additionalSenseCode()).isEqualTo(PROTOCOL_SERVICE_CRC_ERROR_ASC);
            assertThat(failed.additionalSenseCodeQualifier()).isEqualTo(PROTOCOL_SERVICE_CRC_ERROR_ASCQ);

            assertThat(c.testUnitReady(LUN).good()).as("the connection still serves commands").isTrue();
            assertThat(c.read10(LUN, 500, LENGTH / BLOCK, BLOCK).data()).as("nothing of the failed write landed")
                    .isEqualTo(before);
            assertThat(c.write10(LUN, 500, after, BLOCK).good()).as("the retried write").isTrue();
            assertThat(c.read10(LUN, 500, LENGTH / BLOCK, BLOCK).data()).isEqualTo(after);
        }
    }

    @Test
    void corruptImmediateDataIsRejectedAndTheRetriedCommandSucceeds() throws IOException {
        try (RawIscsiClient c = loggedIn("iqn.2026-11.org.jtarget:digest-bad-immediate", true)) {
            byte[] data = random(5, LENGTH);

            c.corruptNext(IscsiOpcodes.SCSI_COMMAND, IscsiDigest.Kind.DATA);
            ScsiResult w = c.write10(LUN, 700, data, BLOCK);

            // The daemon discards the whole command (no CmdSN consumed); the client resends it unchanged.
            assertThat(c.dataDigestRejects()).as("Reject for the corrupt command\n" + describe()).hasSize(1);
            RawPdu reject = c.dataDigestRejects().getFirst();
            assertThat(reject.u8(2)).isEqualTo(0x02);
            assertThat(reject.data()[0] & 0x3f).as("echoed opcode").isEqualTo(IscsiOpcodes.SCSI_COMMAND);
            assertThat(w.good()).as("the retried WRITE(10): " + w + "\n" + describe()).isTrue();
            assertThat(c.read10(LUN, 700, LENGTH / BLOCK, BLOCK).data()).as("the intact payload, not the corrupt one")
                    .isEqualTo(data);
        }
    }

    @Test
    void corruptHeaderDigestDropsOnlyThatConnection() throws IOException {
        try (RawIscsiClient bystander = loggedIn("iqn.2026-11.org.jtarget:digest-bystander", false);
             RawIscsiClient bad = loggedIn("iqn.2026-11.org.jtarget:digest-bad-header", false)) {
            byte[] data = random(6, 4 * BLOCK);
            assertThat(bystander.write10(LUN, 900, data, BLOCK).good()).isTrue();

            bad.sendWithBadDigest(InitiatorPdus.scsiCommand(LUN, 0x4242, bad.cmdSn(), 0, ScsiCdbs.testUnitReady(),
                    false, false, 0), IscsiDigest.Kind.HEADER);
            ProtocolErrorOutcome outcome = bad.awaitRejectOrClose(IO_TIMEOUT);
            if (outcome.kind() == ProtocolErrorOutcome.Kind.REJECTED) {
                // The daemon may say why before closing; it must not go on serving the connection.
                assertThat(outcome.rejectReason()).as("reason of a Reject before the close").isNotEqualTo(0x02);
                outcome = bad.awaitRejectOrClose(IO_TIMEOUT);
            }

            assertThat(outcome.kind()).as("RFC 7143 7.8 at ERL 0: the connection is closed; got " + outcome + "\n"
                    + describe()).isEqualTo(ProtocolErrorOutcome.Kind.CLOSED);
            assertThat(outcome.others()).as("no answer to the corrupt command")
                    .noneMatch(p -> p.opcode() == IscsiOpcodes.SCSI_RESPONSE);
            assertThat(bystander.testUnitReady(LUN).good()).as("the other session\n" + describe()).isTrue();
            assertThat(bystander.read10(LUN, 900, 4, BLOCK).data()).isEqualTo(data);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** A logged-in client offering CRC32C alone for both digests; the daemon must select both. */
    private static RawIscsiClient loggedIn(String initiatorName, boolean immediateData) throws IOException {
        RawIscsiClient c = RawIscsiClient.connect(DaemonProcess.HOST, DAEMON.daemon().port(), IO_TIMEOUT);
        Map<String, String> keys = RawIscsiClient.digestOperationalKeys(true, true);
        if (immediateData) {
            keys.put("ImmediateData", "Yes");
        }
        LoginResult login = c.login(initiatorName, DaemonConfig.IQN, keys);
        if (!login.succeeded()) {
            c.close();
        }
        assertThat(login.succeeded()).as("login of " + initiatorName + ": " + login + "\n" + describe()).isTrue();
        assertThat(login.keys()).as("the digests the daemon selected").containsEntry("HeaderDigest", "CRC32C")
                .containsEntry("DataDigest", "CRC32C");
        assertThat(c.headerDigest() && c.dataDigest()).isTrue();
        ScsiResult tur = c.testUnitReadyClearingUnitAttention(LUN);
        assertThat(tur.good()).as("TEST UNIT READY with digests: " + tur + "\n" + describe()).isTrue();
        return c;
    }

    private static byte[] random(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static String describe() {
        return DAEMON.daemon().describe();
    }
}
