package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RawIscsiClientTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void loginWalksSecurityThenOperationalStageAndRecordsTheTargetLimit() throws Exception {
        List<RawPdu> requests = new ArrayList<>();
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            RawPdu sec = t.receive();
            requests.add(sec);
            t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, sec.itt(), 1).flags(0x81).isid(sec.isid()));
            RawPdu op = t.receive();
            requests.add(op);
            t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, op.itt(), 1).flags(0x87).tsih(0x55).isid(op.isid())
                    .data(TextKeys.encode(Map.of("MaxRecvDataSegmentLength", "4096"))));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {

            LoginResult result = client.login("iqn.i", "iqn.t");

            target.awaitScript();
            assertThat(result.succeeded()).isTrue();
            assertThat(result.tsih()).isEqualTo(0x55);
            assertThat(client.targetMaxRecvDataSegmentLength()).isEqualTo(4096);
            assertThat(requests.get(0).flags()).isEqualTo(0x81);
            assertThat(TextKeys.decode(requests.get(0).data())).containsEntry("InitiatorName", "iqn.i")
                    .containsEntry("TargetName", "iqn.t").containsEntry("SessionType", "Normal")
                    .containsEntry("AuthMethod", "None");
            assertThat(requests.get(1).flags()).isEqualTo(0x87);
            assertThat(TextKeys.decode(requests.get(1).data())).containsEntry("HeaderDigest", "None")
                    .containsEntry("DataDigest", "None");
            assertThat(requests.get(1).word28()).as("ExpStatSN acknowledges the first response").isEqualTo(101);
        }
    }

    @Test
    void loginFailureReturnsTheStatusInsteadOfThrowing() throws Exception {
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            RawPdu sec = t.receive();
            t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, sec.itt(), 1).flags(0).u8(36, 2).u8(37, 3));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {

            LoginResult result = client.login("iqn.i", "iqn.missing");

            target.awaitScript();
            assertThat(result.succeeded()).isFalse();
            assertThat(result.statusClass()).isEqualTo(2);
            assertThat(result.statusDetail()).isEqualTo(3);
        }
    }

    @Test
    void writeAnswersR2tWithDataOutCutToTheTargetsSegmentLength() throws Exception {
        byte[] payload = new byte[2560];
        Arrays.fill(payload, (byte) 0x5a);
        List<RawPdu> dataOuts = new ArrayList<>();
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            t.acceptLogin(1024);
            RawPdu cmd = t.receive();
            t.reply(t.response(IscsiOpcodes.R2T, cmd.itt(), cmd.word24() + 1).lun(1).word20(0x99).word40(0)
                    .word44(2560));
            for (int i = 0; i < 3; i++) {
                dataOuts.add(t.receive());
            }
            t.reply(t.response(IscsiOpcodes.SCSI_RESPONSE, cmd.itt(), cmd.word24() + 1));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {
            client.login("iqn.i", "iqn.t");

            ScsiResult result = client.write10(1, 0, payload, 512);

            target.awaitScript();
            assertThat(result.good()).isTrue();
            assertThat(dataOuts).extracting(RawPdu::dataSegmentLength).containsExactly(1024, 1024, 512);
            assertThat(dataOuts).extracting(RawPdu::word40).containsExactly(0, 1024, 2048);
            assertThat(dataOuts).extracting(RawPdu::word36).containsExactly(0, 1, 2);
            assertThat(dataOuts).extracting(RawPdu::word20).containsOnly(0x99);
            assertThat(dataOuts).extracting(RawPdu::finalFlag).containsExactly(false, false, true);
        }
    }

    @Test
    void readAssemblesDataInByOffsetAndTakesStatusFromTheLastPdu() throws Exception {
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            t.acceptLogin(8192);
            RawPdu cmd = t.receive();
            t.reply(t.response(IscsiOpcodes.SCSI_DATA_IN, cmd.itt(), 2).flags(0).word40(512).data(filled(512, 2)));
            t.reply(t.response(IscsiOpcodes.NOP_IN, RawPdu.RESERVED_TAG, 2).word20(0x1234));
            RawPdu nopAnswer = t.receive();
            if (nopAnswer.opcode() != IscsiOpcodes.NOP_OUT || nopAnswer.word20() != 0x1234) {
                throw new AssertionError("expected a NOP-Out echoing TTT 0x1234, got " + nopAnswer);
            }
            t.reply(t.response(IscsiOpcodes.SCSI_DATA_IN, cmd.itt(), 2).flags(0x81).word40(0).data(filled(512, 1)));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {
            client.login("iqn.i", "iqn.t");

            ScsiResult result = client.read10(0, 0, 2, 512);

            target.awaitScript();
            assertThat(result.good()).isTrue();
            assertThat(result.data()).hasSize(1024);
            assertThat(result.data()[0]).isEqualTo((byte) 1);
            assertThat(result.data()[1023]).isEqualTo((byte) 2);
        }
    }

    @Test
    void checkConditionCarriesSenseFromTheResponseSegment() throws Exception {
        byte[] sense = {0, 18, 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x21, 0, 0, 0, 0, 0};
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            t.acceptLogin(8192);
            RawPdu cmd = t.receive();
            t.reply(t.response(IscsiOpcodes.SCSI_RESPONSE, cmd.itt(), 2).u8(3, 2).data(sense));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {
            client.login("iqn.i", "iqn.t");

            ScsiResult result = client.testUnitReady(0);

            target.awaitScript();
            assertThat(result.status()).isEqualTo(ScsiResult.CHECK_CONDITION);
            assertThat(result.senseKey()).isEqualTo(5);
            assertThat(result.sense()).hasSize(18);
        }
    }

    @Test
    void awaitRejectOrCloseReportsEachOutcome() throws Exception {
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            t.acceptLogin(8192);
            RawPdu junk = t.receive();
            t.reply(t.response(IscsiOpcodes.REJECT, RawPdu.RESERVED_TAG, 2).u8(2, 0x04).data(junk.bhs()));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {
            client.login("iqn.i", "iqn.t");
            client.send(RawPdu.of(IscsiOpcodes.UNASSIGNED_INITIATOR_OPCODE));

            ProtocolErrorOutcome rejected = client.awaitRejectOrClose(TIMEOUT);
            target.awaitScript();
            ProtocolErrorOutcome closed = client.awaitRejectOrClose(TIMEOUT);

            assertThat(rejected.kind()).isEqualTo(ProtocolErrorOutcome.Kind.REJECTED);
            assertThat(rejected.rejectReason()).isEqualTo(0x04);
            assertThat(closed.kind()).isEqualTo(ProtocolErrorOutcome.Kind.CLOSED);
        }
    }

    @Test
    void aTargetClosingMidCommandIsAnErrorNamingTheCommand() throws Exception {
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            t.acceptLogin(8192);
            t.receive();
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {
            client.login("iqn.i", "iqn.t");

            assertThatThrownBy(() -> client.testUnitReady(0))
                    .isInstanceOf(IscsiProtocolException.class)
                    .hasMessageContaining("closed the connection")
                    .hasMessageContaining("SCSI command 0x0");
            target.awaitScript();
        }
    }

    private static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }
}
