package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link RawPdu#toBytes(boolean, boolean, IscsiDigest.Kind)} and {@link PduReader} with digests (RFC 7143 11.2.3). */
class DigestFramingTest {

    private static RawPdu pduWithAhsAndOddData() {
        return RawPdu.of(IscsiOpcodes.SCSI_DATA_IN).itt(7).ahs(new byte[] {1, 2, 3, 4}).data(new byte[] {9, 8, 7});
    }

    @Test
    void headerDigestFollowsAhsAndDataDigestCoversDataAndPadding() {
        RawPdu pdu = pduWithAhsAndOddData();

        byte[] wire = pdu.toBytes(true, true, null);

        assertThat(wire).hasSize(48 + 4 + 4 + 4 + 4);
        assertThat(IscsiDigest.get(wire, 52)).isEqualTo(IscsiDigest.crc32c(wire, 0, 52));
        assertThat(Arrays.copyOfRange(wire, 56, 60)).containsExactly(9, 8, 7, 0);
        assertThat(IscsiDigest.get(wire, 60)).isEqualTo(IscsiDigest.crc32c(new byte[] {9, 8, 7, 0}, 0, 4));
        assertThat(pdu.toBytes(false, false, null)).isEqualTo(pdu.toBytes());
    }

    @Test
    void anEmptyDataSegmentCarriesNoDataDigest() {
        byte[] wire = RawPdu.of(IscsiOpcodes.NOP_OUT).toBytes(true, true, null);

        assertThat(wire).hasSize(48 + 4);
    }

    @Test
    void readerAcceptsGoodDigestsAndFramesTheNextPdu() throws IOException {
        byte[] two = concat(pduWithAhsAndOddData().toBytes(true, true, null),
                RawPdu.of(IscsiOpcodes.NOP_IN).itt(8).toBytes(true, true, null));
        ByteArrayInputStream in = new ByteArrayInputStream(two);

        RawPdu first = PduReader.read(in, 1024, true, true);
        RawPdu second = PduReader.read(in, 1024, true, true);

        assertThat(first.ahs()).containsExactly(1, 2, 3, 4);
        assertThat(first.data()).containsExactly(9, 8, 7);
        assertThat(second.itt()).isEqualTo(8);
        assertThat(PduReader.read(in, 1024, true, true)).isNull();
    }

    @Test
    void corruptedHeaderDigestIsReportedByName() {
        byte[] wire = pduWithAhsAndOddData().toBytes(true, true, IscsiDigest.Kind.HEADER);

        assertThatThrownBy(() -> PduReader.read(new ByteArrayInputStream(wire), 1024, true, true))
                .isInstanceOfSatisfying(DigestMismatchException.class,
                        e -> assertThat(e.kind()).isEqualTo(IscsiDigest.Kind.HEADER))
                .hasMessageContaining("HeaderDigest mismatch");
    }

    @Test
    void corruptedPayloadFailsTheDataDigestButKeepsTheHeaderOne() {
        RawPdu pdu = pduWithAhsAndOddData();
        byte[] good = pdu.toBytes(true, true, null);

        byte[] bad = pdu.toBytes(true, true, IscsiDigest.Kind.DATA);

        assertThat(bad[56]).as("first payload byte flipped").isEqualTo((byte) (9 ^ 1));
        assertThat(Arrays.copyOf(bad, 56)).as("header and its digest untouched").isEqualTo(Arrays.copyOf(good, 56));
        assertThat(Arrays.copyOfRange(bad, 60, 64)).as("digest of the original payload")
                .isEqualTo(Arrays.copyOfRange(good, 60, 64));
        assertThatThrownBy(() -> PduReader.read(new ByteArrayInputStream(bad), 1024, true, true))
                .isInstanceOfSatisfying(DigestMismatchException.class,
                        e -> assertThat(e.kind()).isEqualTo(IscsiDigest.Kind.DATA))
                .hasMessageContaining("DataDigest mismatch");
    }

    @Test
    void aDigestThatIsNotThereCannotBeCorrupted() {
        assertThatThrownBy(() -> RawPdu.of(IscsiOpcodes.NOP_OUT).toBytes(true, true, IscsiDigest.Kind.DATA))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DataDigest");
        assertThatThrownBy(() -> pduWithAhsAndOddData().toBytes(false, true, IscsiDigest.Kind.HEADER))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("HeaderDigest");
    }

    @Test
    void readerWithoutDigestsSeesDigestBytesAsGarbage() throws IOException {
        // a reader that forgot the HeaderDigest would take its 4 bytes for data: the frames must differ
        byte[] wire = RawPdu.of(IscsiOpcodes.NOP_IN).itt(1).toBytes(true, false, null);
        ByteArrayInputStream in = new ByteArrayInputStream(wire);

        PduReader.read(in, 1024, false, false);

        assertThat(in.available()).isEqualTo(4);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
