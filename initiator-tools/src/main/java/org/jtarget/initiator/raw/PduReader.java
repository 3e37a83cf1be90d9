package org.jtarget.initiator.raw;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads one PDU from a byte stream (RFC 7143 11.2): 48-byte BHS, TotalAHSLength words of AHS,
 * the HeaderDigest if negotiated, DataSegmentLength bytes of data plus 0-3 pad bytes, the
 * DataDigest if negotiated and the segment is not empty. A digest that does not match is a
 * {@link DigestMismatchException}, never a silently accepted PDU.
 */
public final class PduReader {

    private PduReader() {
    }

    /** Reads the next PDU of a connection without digests (login phase, or None negotiated). */
    public static RawPdu read(InputStream in, int maxDataSegmentLength) throws IOException {
        return read(in, maxDataSegmentLength, false, false);
    }

    /**
     * Reads the next PDU, checking the digests that are in use.
     *
     * @param maxDataSegmentLength a larger DataSegmentLength is treated as a framing error (so that
     *                             garbage never makes the reader allocate megabytes)
     * @param headerDigest         a CRC32C HeaderDigest follows the BHS and AHS
     * @param dataDigest           a CRC32C DataDigest follows a non-empty data segment and its padding
     * @return the PDU, or {@code null} if the stream ended cleanly before the first byte
     * @throws EOFException             if the stream ended inside a PDU
     * @throws DigestMismatchException  if a digest does not match (the header one is checked before
     *                                  the DataSegmentLength is trusted)
     * @throws IscsiProtocolException   if the DataSegmentLength exceeds {@code maxDataSegmentLength}
     */
    public static RawPdu read(InputStream in, int maxDataSegmentLength, boolean headerDigest, boolean dataDigest)
            throws IOException {
        byte[] bhs = new byte[RawPdu.BHS_LENGTH];
        int first = in.read();
        if (first < 0) {
            return null;
        }
        bhs[0] = (byte) first;
        readFully(in, bhs, 1, RawPdu.BHS_LENGTH - 1, "BHS");
        RawPdu header = RawPdu.wrap(bhs, new byte[0], new byte[0]);
        byte[] ahs = new byte[header.totalAhsLength() * 4];
        readFully(in, ahs, 0, ahs.length, "AHS");
        if (headerDigest) {
            checkHeaderDigest(in, header, bhs, ahs);
        }
        int dsl = header.dataSegmentLength();
        if (dsl > maxDataSegmentLength) {
            throw new IscsiProtocolException("received " + header + " with DataSegmentLength " + dsl
                    + " above the limit " + maxDataSegmentLength);
        }
        byte[] padded = new byte[RawPdu.paddedLength(dsl)];
        readFully(in, padded, 0, padded.length, "data segment");
        if (dataDigest && dsl > 0) {
            int expected = IscsiDigest.crc32c(padded, 0, padded.length);
            int received = readDigest(in, "DataDigest");
            if (expected != received) {
                throw new DigestMismatchException(IscsiDigest.Kind.DATA, header.toString(), expected, received);
            }
        }
        byte[] data = padded.length == dsl ? padded : java.util.Arrays.copyOf(padded, dsl);
        return RawPdu.wrap(bhs, ahs, data);
    }

    private static void checkHeaderDigest(InputStream in, RawPdu header, byte[] bhs, byte[] ahs) throws IOException {
        byte[] covered = new byte[bhs.length + ahs.length];
        System.arraycopy(bhs, 0, covered, 0, bhs.length);
        System.arraycopy(ahs, 0, covered, bhs.length, ahs.length);
        int expected = IscsiDigest.crc32c(covered, 0, covered.length);
        int received = readDigest(in, "HeaderDigest");
        if (expected != received) {
            throw new DigestMismatchException(IscsiDigest.Kind.HEADER, header.toString(), expected, received);
        }
    }

    private static int readDigest(InputStream in, String what) throws IOException {
        byte[] d = new byte[IscsiDigest.LENGTH];
        readFully(in, d, 0, d.length, what);
        return IscsiDigest.get(d, 0);
    }

    private static void readFully(InputStream in, byte[] b, int off, int len, String what) throws IOException {
        int done = 0;
        while (done < len) {
            int n = in.read(b, off + done, len - done);
            if (n < 0) {
                throw new EOFException("stream ended inside a PDU's " + what + " after " + done + " of " + len
                        + " bytes");
            }
            done += n;
        }
    }
}
