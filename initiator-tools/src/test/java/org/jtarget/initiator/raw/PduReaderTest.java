package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PduReaderTest {

    @Test
    void readsHeaderAhsAndDataAndConsumesThePadding() throws IOException {
        RawPdu sent = RawPdu.of(IscsiOpcodes.SCSI_DATA_IN).itt(7).ahs(new byte[] {1, 2, 3, 4}).data(new byte[] {9, 8, 7});
        byte[] two = concat(sent.toBytes(), RawPdu.of(IscsiOpcodes.NOP_IN).toBytes());
        ByteArrayInputStream in = new ByteArrayInputStream(two);

        RawPdu first = PduReader.read(in, 1024);
        RawPdu second = PduReader.read(in, 1024);

        assertThat(first.opcode()).isEqualTo(IscsiOpcodes.SCSI_DATA_IN);
        assertThat(first.itt()).isEqualTo(7);
        assertThat(first.ahs()).containsExactly(1, 2, 3, 4);
        assertThat(first.data()).containsExactly(9, 8, 7);
        assertThat(second.opcode()).isEqualTo(IscsiOpcodes.NOP_IN);
        assertThat(PduReader.read(in, 1024)).isNull();
    }

    @Test
    void cleanEndOfStreamGivesNull() throws IOException {
        assertThat(PduReader.read(new ByteArrayInputStream(new byte[0]), 1024)).isNull();
    }

    @Test
    void endOfStreamInsideAPduIsAnError() {
        byte[] truncated = Arrays.copyOf(RawPdu.of(IscsiOpcodes.NOP_IN).data(new byte[8]).toBytes(), 50);

        assertThatThrownBy(() -> PduReader.read(new ByteArrayInputStream(truncated), 1024))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("data segment");
    }

    @Test
    void dataSegmentLengthAboveTheLimitIsRefusedBeforeAllocating() {
        byte[] header = RawPdu.of(IscsiOpcodes.SCSI_DATA_IN).dataSegmentLength(RawPdu.MAX_DATA_SEGMENT_LENGTH).toBytes();

        assertThatThrownBy(() -> PduReader.read(new ByteArrayInputStream(header), 8192))
                .isInstanceOf(IscsiProtocolException.class)
                .hasMessageContaining("above the limit 8192");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
