package org.jtarget.initiator.crashcheck;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BlockImageTest {

    @Test
    void headerRoundTripsAndChecksumMatches() {
        byte[] b = BlockImage.render(512, 0x1234L, 7, 99);
        BlockImage.Header h = BlockImage.header(b, 0, 512);
        assertThat(h).isEqualTo(new BlockImage.Header(0x1234L, 7, 99, 512, true));
        assertThat(BlockImage.getLong(b, BlockImage.MAGIC_OFFSET)).isEqualTo(BlockImage.MAGIC);
    }

    @Test
    void payloadIsAPureFunctionOfRunAndSequence() {
        assertThat(BlockImage.render(4096, 5, 6, 10)).isEqualTo(BlockImage.render(4096, 5, 6, 10));
        byte[] a = BlockImage.render(512, 5, 6, 10);
        byte[] otherSeq = BlockImage.render(512, 5, 7, 10);
        byte[] otherRun = BlockImage.render(512, 6, 6, 10);
        assertThat(java.util.Arrays.equals(a, BlockImage.HEADER_LENGTH, 512, otherSeq, BlockImage.HEADER_LENGTH, 512))
                .isFalse();
        assertThat(java.util.Arrays.equals(a, BlockImage.HEADER_LENGTH, 512, otherRun, BlockImage.HEADER_LENGTH, 512))
                .isFalse();
    }

    @Test
    void aFlippedBitAnywhereFailsTheChecksum() {
        for (int pos : new int[] {BlockImage.RUN_ID_OFFSET, BlockImage.SEQUENCE_OFFSET + 7, BlockImage.LBA_OFFSET,
                BlockImage.CRC_OFFSET, BlockImage.HEADER_LENGTH, 300, 511}) {
            byte[] b = BlockImage.render(512, 1, 2, 3);
            b[pos] ^= 0x10;
            assertThat(BlockImage.header(b, 0, 512).crcOk()).as("bit flipped at byte " + pos).isFalse();
        }
    }

    @Test
    void headerIsReadAtAnOffsetInsideALargerRead() {
        byte[] two = new byte[1024];
        System.arraycopy(BlockImage.render(512, 9, 1, 41), 0, two, 512, 512);
        assertThat(BlockImage.header(two, 0, 512)).as("zeros have no magic").isNull();
        assertThat(BlockImage.header(two, 512, 512)).isEqualTo(new BlockImage.Header(9, 1, 41, 512, true));
    }
}
