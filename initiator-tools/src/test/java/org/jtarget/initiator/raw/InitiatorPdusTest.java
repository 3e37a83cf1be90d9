package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InitiatorPdusTest {

    @Test
    void loginRequestLaysOutEveryFieldOfRfc7143Section11_12() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("AuthMethod", "None");
        RawPdu pdu = InitiatorPdus.loginRequest(true, InitiatorPdus.LOGIN_OPERATIONAL_NEGOTIATION,
                InitiatorPdus.FULL_FEATURE_PHASE, 0x80_0001_0002_03L, 0x0102, 0x11223344, 7, 5, 9, keys);

        byte[] w = pdu.toBytes();
        assertThat(w[0]).isEqualTo((byte) 0x43);          // immediate + Login Request
        assertThat(w[1]).isEqualTo((byte) 0x87);          // T=1, CSG=1, NSG=3
        assertThat(w[2]).isZero();                        // Version-max
        assertThat(w[3]).isZero();                        // Version-min
        assertThat(Arrays.copyOfRange(w, 8, 14)).containsExactly(0x80, 0x00, 0x01, 0x00, 0x02, 0x03);
        assertThat(Arrays.copyOfRange(w, 14, 16)).containsExactly(0x01, 0x02);
        assertThat(Arrays.copyOfRange(w, 16, 20)).containsExactly(0x11, 0x22, 0x33, 0x44);
        assertThat(Arrays.copyOfRange(w, 20, 22)).containsExactly(0, 7); // CID
        assertThat(Arrays.copyOfRange(w, 24, 28)).containsExactly(0, 0, 0, 5); // CmdSN
        assertThat(Arrays.copyOfRange(w, 28, 32)).containsExactly(0, 0, 0, 9); // ExpStatSN
        byte[] text = "AuthMethod=None\0".getBytes(StandardCharsets.UTF_8);
        assertThat(pdu.dataSegmentLength()).isEqualTo(text.length);
        assertThat(Arrays.copyOfRange(w, 48, 48 + text.length)).isEqualTo(text);
        assertThat(w).hasSize(48 + RawPdu.paddedLength(text.length));
    }

    @Test
    void loginRequestWithoutTransitLeavesNsgZero() {
        RawPdu pdu = InitiatorPdus.loginRequest(false, InitiatorPdus.SECURITY_NEGOTIATION,
                InitiatorPdus.FULL_FEATURE_PHASE, 1, 0, 1, 0, 1, 0, Map.of());

        assertThat(pdu.flags()).isZero();
    }

    @Test
    void scsiReadCommandSetsFinalReadAndSimpleAttribute() {
        RawPdu pdu = InitiatorPdus.scsiCommand(3, 0x42, 10, 20, ScsiCdbs.read10(0x01020304L, 8), true, false, 4096);

        byte[] w = pdu.toBytes();
        assertThat(w).hasSize(48);
        assertThat(w[0]).isEqualTo((byte) 0x01);
        assertThat(w[1]).isEqualTo((byte) 0xc1);
        assertThat(pdu.lunField()).isEqualTo(0x0003_0000_0000_0000L);
        assertThat(pdu.itt()).isEqualTo(0x42);
        assertThat(pdu.word20()).isEqualTo(4096);        // Expected Data Transfer Length
        assertThat(pdu.word24()).isEqualTo(10);          // CmdSN
        assertThat(pdu.word28()).isEqualTo(20);          // ExpStatSN
        assertThat(Arrays.copyOfRange(w, 32, 48))
                .containsExactly(0x28, 0, 1, 2, 3, 4, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void scsiWriteCommandSetsWriteBitOnly() {
        RawPdu pdu = InitiatorPdus.scsiCommand(0, 1, 1, 1, ScsiCdbs.write10(0, 1), false, true, 512);

        assertThat(pdu.flags()).isEqualTo(0xa1);
    }

    @Test
    void dataOutCarriesTheR2tTagOffsetAndDataSn() {
        RawPdu pdu = InitiatorPdus.dataOut(1, 5, 0x77, 3, 2, 8192, new byte[6], true);

        assertThat(pdu.bhs()[0]).isEqualTo((byte) 0x05);
        assertThat(pdu.flags()).isEqualTo(0x80);
        assertThat(pdu.word20()).isEqualTo(0x77);
        assertThat(pdu.word24()).isZero();               // reserved in Data-Out
        assertThat(pdu.word28()).isEqualTo(3);
        assertThat(pdu.word36()).isEqualTo(2);
        assertThat(pdu.word40()).isEqualTo(8192);
        assertThat(pdu.dataSegmentLength()).isEqualTo(6);
        assertThat(pdu.toBytes()).hasSize(48 + 8);
    }

    @Test
    void nopOutAnsweringATargetNopCarriesTheReservedItt() {
        RawPdu pdu = InitiatorPdus.nopOut(RawPdu.RESERVED_TAG, 0x1234, 4, 5, true);

        assertThat(pdu.bhs()[0]).isEqualTo((byte) 0x40);
        assertThat(pdu.itt()).isEqualTo(-1);
        assertThat(pdu.word20()).isEqualTo(0x1234);
    }

    @Test
    void logoutRequestIsImmediateAndClosesTheSession() {
        RawPdu pdu = InitiatorPdus.logoutRequest(9, 0, 4, 5);

        assertThat(pdu.bhs()[0]).isEqualTo((byte) 0x46);
        assertThat(pdu.flags()).isEqualTo(0x80);
        assertThat(pdu.word24()).isEqualTo(4);
    }

    @Test
    void textRequestStartsANewExchangeWithReservedTtt() {
        RawPdu pdu = InitiatorPdus.textRequest(3, 1, 2, Map.of("SendTargets", "All"));

        assertThat(pdu.bhs()[0]).isEqualTo((byte) 0x04);
        assertThat(pdu.word20()).isEqualTo(RawPdu.RESERVED_TAG);
        assertThat(new String(pdu.data(), StandardCharsets.UTF_8)).isEqualTo("SendTargets=All\0");
    }
}
