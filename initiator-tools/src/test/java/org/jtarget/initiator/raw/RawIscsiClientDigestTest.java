package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The raw client with CRC32C digests against a scripted target that checks and sends them. */
class RawIscsiClientDigestTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Map<String, String> BOTH_CRC32C = Map.of("HeaderDigest", "CRC32C", "DataDigest", "CRC32C");

    /** Login answering CRC32C for both digests, then digests on for the rest of the script. */
    private static void acceptDigestLogin(ScriptedTarget t, Map<String, String> extra) throws Exception {
        java.util.Map<String, String> keys = new java.util.LinkedHashMap<>(BOTH_CRC32C);
        keys.putAll(extra);
        t.acceptLogin(65536, keys);
        t.headerDigest = true;
        t.dataDigest = true;
    }

    @Test
    void offersCrc32cAloneAndUsesBothDigestsAfterLogin() throws Exception {
        List<RawPdu> requests = new ArrayList<>();
        byte[] block = new byte[512];
        Arrays.fill(block, (byte) 0x3c);
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            RawPdu sec = t.receive();
            t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, sec.itt(), 1).flags(0x81).isid(sec.isid()));
            RawPdu op = t.receive();
            requests.add(op);
            t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, op.itt(), 1).flags(0x87).tsih(0x55).isid(op.isid())
                    .data(TextKeys.encode(BOTH_CRC32C)));
            t.headerDigest = true;
            t.dataDigest = true;
            RawPdu read = t.receive(); // fails the script if the client sent no (or a wrong) HeaderDigest
            requests.add(read);
            t.reply(t.response(IscsiOpcodes.SCSI_DATA_IN, read.itt(), read.word24() + 1).flags(0x81).data(block));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {

            LoginResult login = client.login("iqn.i", "iqn.t", RawIscsiClient.digestOperationalKeys(true, true));
            ScsiResult r = client.read10(0, 0, 1, 512);

            target.awaitScript();
            assertThat(TextKeys.decode(requests.get(0).data())).containsEntry("HeaderDigest", "CRC32C")
                    .containsEntry("DataDigest", "CRC32C");
            assertThat(login.keys()).containsAllEntriesOf(BOTH_CRC32C);
            assertThat(client.headerDigest()).isTrue();
            assertThat(client.dataDigest()).isTrue();
            assertThat(requests.get(1).opcode()).isEqualTo(IscsiOpcodes.SCSI_COMMAND);
            assertThat(r.good()).isTrue();
            assertThat(r.data()).isEqualTo(block);
        }
    }

    @Test
    void digestsStayOffWhenTheTargetAnswersNone() throws Exception {
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            t.acceptLogin(65536, Map.of("HeaderDigest", "None", "DataDigest", "None"));
            RawPdu tur = t.receive();
            t.reply(t.response(IscsiOpcodes.SCSI_RESPONSE, tur.itt(), tur.word24() + 1));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {

            client.login("iqn.i", "iqn.t", RawIscsiClient.digestOperationalKeys(true, true));

            assertThat(client.testUnitReady(0).good()).isTrue();
            target.awaitScript();
            assertThat(client.headerDigest()).isFalse();
            assertThat(client.dataDigest()).isFalse();
            assertThatThrownBy(() -> client.corruptNext(IscsiOpcodes.SCSI_DATA_OUT, IscsiDigest.Kind.DATA))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aDataInWithABadDataDigestIsAnErrorNamingTheDigest() throws Exception {
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            acceptDigestLogin(t, Map.of());
            RawPdu read = t.receive();
            t.replyBytes(t.response(IscsiOpcodes.SCSI_DATA_IN, read.itt(), read.word24() + 1).flags(0x81)
                    .data(new byte[512]).toBytes(true, true, IscsiDigest.Kind.DATA));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {
            client.login("iqn.i", "iqn.t", RawIscsiClient.digestOperationalKeys(true, true));

            assertThatThrownBy(() -> client.read10(0, 0, 1, 512)).isInstanceOf(DigestMismatchException.class)
                    .hasMessageContaining("DataDigest");
            target.awaitScript();
        }
    }

    @Test
    void aRejectedDataOutIsRecordedAndTheTargetsStatusReturned() throws Exception {
        byte[] payload = new byte[1024];
        Arrays.fill(payload, (byte) 0x11);
        List<byte[]> seen = new ArrayList<>();
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            acceptDigestLogin(t, Map.of());
            RawPdu cmd = t.receive();
            t.reply(t.response(IscsiOpcodes.R2T, cmd.itt(), cmd.word24() + 1).word20(0x99).word40(0).word44(1024));
            try {
                t.receive();
                throw new AssertionError("the Data-Out passed its DataDigest");
            } catch (DigestMismatchException e) {
                seen.add(e.getMessage().getBytes());
            }
            RawPdu echoed = RawPdu.of(IscsiOpcodes.SCSI_DATA_OUT).itt(cmd.itt());
            t.reply(t.response(IscsiOpcodes.REJECT, RawPdu.RESERVED_TAG, cmd.word24() + 1).u8(2, 0x02)
                    .data(echoed.bhs()));
            t.reply(t.response(IscsiOpcodes.SCSI_RESPONSE, cmd.itt(), cmd.word24() + 1).u8(3, 0x02)
                    .data(new byte[] {0, 18, 0x70, 0, 0x0b, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x47, 0x05, 0, 0, 0, 0}));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {
            client.login("iqn.i", "iqn.t", RawIscsiClient.digestOperationalKeys(true, true));
            client.corruptNext(IscsiOpcodes.SCSI_DATA_OUT, IscsiDigest.Kind.DATA);

            ScsiResult r = client.write10(0, 0, payload, 512);

            target.awaitScript();
            assertThat(seen).hasSize(1);
            assertThat(r.status()).isEqualTo(ScsiResult.CHECK_CONDITION);
            assertThat(r.senseKey()).isEqualTo(0x0b);
            assertThat(r.additionalSenseCode()).isEqualTo(0x47);
            assertThat(r.additionalSenseCodeQualifier()).isEqualTo(0x05);
            assertThat(client.dataDigestRejects()).hasSize(1);
        }
    }

    @Test
    void aCommandWhoseImmediateDataIsRejectedIsRetriedWithTheSameTagAndCmdSn() throws Exception {
        byte[] payload = new byte[1024];
        Arrays.fill(payload, (byte) 0x22);
        List<RawPdu> commands = new ArrayList<>();
        try (ScriptedTarget target = new ScriptedTarget(t -> {
            acceptDigestLogin(t, Map.of("ImmediateData", "Yes", "FirstBurstLength", "65536"));
            RawPdu bad = t.receiveUncheckedData();
            commands.add(bad);
            t.reply(t.response(IscsiOpcodes.REJECT, RawPdu.RESERVED_TAG, bad.word24()).u8(2, 0x02)
                    .data(bad.bhs()));
            commands.add(t.receive());
            t.reply(t.response(IscsiOpcodes.SCSI_RESPONSE, bad.itt(), bad.word24() + 1));
        });
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", target.port(), TIMEOUT)) {
            client.login("iqn.i", "iqn.t", RawIscsiClient.digestOperationalKeys(true, true));
            client.corruptNext(IscsiOpcodes.SCSI_COMMAND, IscsiDigest.Kind.DATA);

            ScsiResult r = client.write10(0, 0, payload, 512);

            target.awaitScript();
            assertThat(r.good()).isTrue();
            assertThat(commands).hasSize(2);
            assertThat(commands.get(0).data()[0]).as("the first copy arrived corrupt").isEqualTo((byte) (0x22 ^ 1));
            RawPdu retry = commands.get(1);
            assertThat(retry.itt()).isEqualTo(commands.get(0).itt());
            assertThat(retry.word24()).as("same CmdSN").isEqualTo(commands.get(0).word24());
            assertThat(retry.data()).as("immediate data, intact").isEqualTo(payload);
            assertThat(client.dataDigestRejects()).hasSize(1);
        }
    }
}
