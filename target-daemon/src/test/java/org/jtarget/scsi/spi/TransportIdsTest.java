package org.jtarget.scsi.spi;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TransportIdsTest {

    private static final String SRP_PORT = "0x0123456789abcdeffedcba9876543210";

    @Test
    void protocolIdentifiersAreSpc4Codes() {
        assertThat(ProtocolId.ISCSI.code()).isEqualTo(5);
        assertThat(ProtocolId.SRP.code()).isEqualTo(4);
        assertThat(ProtocolId.fromCode(0x45)).isEqualTo(ProtocolId.ISCSI); // format bits ignored
        assertThat(ProtocolId.fromCode(0x0)).isNull(); // Fibre Channel: no fabric here
    }

    @Test
    void iscsiPortNameIsFormat01bNullTerminatedAndPaddedToFour() {
        byte[] id = TransportIds.encode(ProtocolId.ISCSI, "iqn.a,i,0x1");
        assertThat(id[0]).isEqualTo((byte) 0x45);
        assertThat(id).hasSize(24); // ADDITIONAL LENGTH at least 20
        assertThat(id[3]).isEqualTo((byte) 20);
        assertThat(new String(id, 4, 12, StandardCharsets.UTF_8)).isEqualTo("iqn.a,i,0x1\0");
        assertThat(TransportIds.length(id, 0, id.length)).isEqualTo(24);
        assertThat(TransportIds.decode(id, 0, 24, ProtocolId.ISCSI))
                .isEqualTo(new TransportId(ProtocolId.ISCSI, "iqn.a,i,0x1"));
    }

    @Test
    void iscsiBareNameIsFormat00b() {
        String longName = "iqn.2026-11.org.example:a-rather-long-initiator-name";
        byte[] id = TransportIds.encode(ProtocolId.ISCSI, longName);
        assertThat(id[0]).isEqualTo((byte) 0x05);
        assertThat(id.length % 4).isZero();
        assertThat(TransportIds.decode(id, 0, id.length, ProtocolId.ISCSI).portName()).isEqualTo(longName);
    }

    @Test
    void iscsiWithoutTerminatorOrWithWrongFormatIsRejected() {
        byte[] id = TransportIds.encode(ProtocolId.ISCSI, "iqn.a,i,0x1");
        byte[] noNull = id.clone();
        for (int i = 4; i < noNull.length; i++) {
            noNull[i] = 'x';
        }
        assertThat(TransportIds.decode(noNull, 0, noNull.length, ProtocolId.ISCSI)).isNull();
        byte[] nameFormatWithIsid = id.clone();
        nameFormatWithIsid[0] = 0x05; // format 00b must not carry ",i,0x"
        assertThat(TransportIds.decode(nameFormatWithIsid, 0, id.length, ProtocolId.ISCSI)).isNull();
    }

    @Test
    void srpIs24BytesWithThePortIdentifierAtByte8() {
        byte[] id = TransportIds.encode(ProtocolId.SRP, SRP_PORT);
        assertThat(id).hasSize(24);
        assertThat(id[0]).isEqualTo((byte) 0x04); // format 00b, protocol 4h
        for (int i = 1; i < 8; i++) {
            assertThat(id[i]).isZero();
        }
        assertThat(id[8]).isEqualTo((byte) 0x01);
        assertThat(id[9]).isEqualTo((byte) 0x23);
        assertThat(id[23]).isEqualTo((byte) 0x10);
        assertThat(TransportIds.length(id, 0, 24)).isEqualTo(24);
        assertThat(TransportIds.length(id, 0, 23)).isEqualTo(-1);
        assertThat(TransportIds.decode(id, 0, 24, ProtocolId.SRP)).isEqualTo(new TransportId(ProtocolId.SRP, SRP_PORT));
    }

    @Test
    void shortSrpPortNamesAreTheLowOrderBytes() {
        byte[] id = TransportIds.encode(ProtocolId.SRP, "0xABCD");
        assertThat(id[22]).isEqualTo((byte) 0xAB);
        assertThat(id[23]).isEqualTo((byte) 0xCD);
        assertThat(TransportIds.decode(id, 0, 24, ProtocolId.SRP).portName())
                .isEqualTo("0x" + "0".repeat(28) + "abcd");
        assertThatThrownBy(() -> TransportIds.encode(ProtocolId.SRP, "0xabc")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTransportIdOfAnotherProtocolOrFormatIsRejected() {
        byte[] srp = TransportIds.encode(ProtocolId.SRP, SRP_PORT);
        assertThat(TransportIds.decode(srp, 0, 24, ProtocolId.ISCSI)).isNull();
        byte[] iscsi = TransportIds.encode(ProtocolId.ISCSI, "iqn.a,i,0x1");
        assertThat(TransportIds.decode(iscsi, 0, iscsi.length, ProtocolId.SRP)).isNull();
        srp[0] = 0x44; // SRP has format 00b only
        assertThat(TransportIds.decode(srp, 0, 24, ProtocolId.SRP)).isNull();
    }

    @Test
    void theNexusEncodesItsInitiatorPortInItsProtocol() {
        ITNexus iscsi = new ITNexus(ProtocolId.ISCSI, "iqn.a", "iqn.a,i,0x1", "iqn.t,t,0x1", 1, 1);
        assertThat(iscsi.initiatorTransportId()).isEqualTo(TransportIds.encode(ProtocolId.ISCSI, "iqn.a,i,0x1"));
        ITNexus srp = new ITNexus(ProtocolId.SRP, SRP_PORT, SRP_PORT, "0xfe", 1, 1);
        assertThat(srp.initiatorTransportId()[0]).isEqualTo((byte) 0x04);
    }
}
