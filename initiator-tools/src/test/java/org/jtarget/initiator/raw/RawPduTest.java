package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RawPduTest {

    @Test
    void toBytesPadsTheDataSegmentToAWordBoundaryWithZeros() {
        RawPdu pdu = RawPdu.of(IscsiOpcodes.TEXT_REQUEST).data(new byte[] {1, 2, 3, 4, 5});

        byte[] wire = pdu.toBytes();

        assertThat(wire).hasSize(48 + 8);
        assertThat(wire[5]).isEqualTo((byte) 0);
        assertThat(wire[7]).isEqualTo((byte) 5);
        assertThat(java.util.Arrays.copyOfRange(wire, 48, 56)).containsExactly(1, 2, 3, 4, 5, 0, 0, 0);
    }

    @Test
    void opcodeAndImmediateBitShareByteZeroWithoutClobberingEachOther() {
        RawPdu pdu = RawPdu.of(IscsiOpcodes.LOGIN_REQUEST).immediate(true);

        assertThat(pdu.bhs()[0]).isEqualTo((byte) 0x43);
        pdu.opcode(IscsiOpcodes.TEXT_REQUEST);
        assertThat(pdu.bhs()[0]).isEqualTo((byte) 0x44);
        assertThat(pdu.immediate()).isTrue();
        assertThat(pdu.opcode()).isEqualTo(IscsiOpcodes.TEXT_REQUEST);
    }

    @Test
    void dataSegmentLengthIsAThreeByteBigEndianField() {
        RawPdu pdu = RawPdu.of(IscsiOpcodes.SCSI_COMMAND).dataSegmentLength(0x123456);

        assertThat(pdu.bhs()[4]).isEqualTo((byte) 0);
        assertThat(pdu.bhs()[5]).isEqualTo((byte) 0x12);
        assertThat(pdu.bhs()[6]).isEqualTo((byte) 0x34);
        assertThat(pdu.bhs()[7]).isEqualTo((byte) 0x56);
        assertThat(pdu.dataSegmentLength()).isEqualTo(0x123456);
    }

    @Test
    void lunBelow256UsesPeripheralDeviceAddressing() {
        assertThat(RawPdu.encodeLun(0)).isZero();
        assertThat(RawPdu.encodeLun(5)).isEqualTo(0x0005_0000_0000_0000L);
        assertThat(RawPdu.encodeLun(255)).isEqualTo(0x00ff_0000_0000_0000L);
    }

    @Test
    void lunFrom256UsesFlatSpaceAddressing() {
        assertThat(RawPdu.encodeLun(256)).isEqualTo(0x4100_0000_0000_0000L);
        assertThat(RawPdu.encodeLun(0x3fff)).isEqualTo(0x7fff_0000_0000_0000L);
        assertThatThrownBy(() -> RawPdu.encodeLun(0x4000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void isidTakesSixBytesFromOffsetEight() {
        RawPdu pdu = RawPdu.of(IscsiOpcodes.LOGIN_REQUEST).isid(0x80_1234_5678_9aL).tsih(0xbeef);

        assertThat(java.util.Arrays.copyOfRange(pdu.bhs(), 8, 16))
                .containsExactly(0x80, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbe, 0xef);
        assertThat(pdu.isid()).isEqualTo(0x80_1234_5678_9aL);
        assertThat(pdu.tsih()).isEqualTo(0xbeef);
    }

    @Test
    void ahsLengthIsCountedInWords() {
        RawPdu pdu = RawPdu.of(IscsiOpcodes.SCSI_COMMAND).ahs(new byte[8]);

        assertThat(pdu.totalAhsLength()).isEqualTo(2);
        assertThat(pdu.toBytes()).hasSize(56);
        assertThatThrownBy(() -> pdu.ahs(new byte[3])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cdbLongerThanSixteenBytesIsRefused() {
        assertThatThrownBy(() -> RawPdu.of(IscsiOpcodes.SCSI_COMMAND).cdb(new byte[17]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void wrapRefusesAHeaderThatIsNot48Bytes() {
        assertThatThrownBy(() -> RawPdu.wrap(new byte[47], new byte[0], new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
