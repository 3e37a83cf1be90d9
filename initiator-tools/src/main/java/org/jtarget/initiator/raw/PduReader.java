package org.jtarget.initiator.raw;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads one PDU from a byte stream (RFC 7143 11.2): 48-byte BHS, TotalAHSLength words of AHS,
 * DataSegmentLength bytes of data plus 0-3 pad bytes. Digests must not be in use.
 */
public final class PduReader {

    private PduReader() {
    }

    /**
     * Reads the next PDU.
     *
     * @param maxDataSegmentLength a larger DataSegmentLength is treated as a framing error (so that
     *                             garbage never makes the reader allocate megabytes)
     * @return the PDU, or {@code null} if the stream ended cleanly before the first byte
     * @throws EOFException           if the stream ended inside a PDU
     * @throws IscsiProtocolException if the DataSegmentLength exceeds {@code maxDataSegmentLength}
     */
    public static RawPdu read(InputStream in, int maxDataSegmentLength) throws IOException {
        byte[] bhs = new byte[RawPdu.BHS_LENGTH];
        int first = in.read();
        if (first < 0) {
            return null;
        }
        bhs[0] = (byte) first;
        readFully(in, bhs, 1, RawPdu.BHS_LENGTH - 1, "BHS");
        RawPdu header = RawPdu.wrap(bhs, new byte[0], new byte[0]);
        int dsl = header.dataSegmentLength();
        if (dsl > maxDataSegmentLength) {
            throw new IscsiProtocolException("received " + header + " with DataSegmentLength " + dsl
                    + " above the limit " + maxDataSegmentLength);
        }
        byte[] ahs = new byte[header.totalAhsLength() * 4];
        readFully(in, ahs, 0, ahs.length, "AHS");
        byte[] padded = new byte[RawPdu.paddedLength(dsl)];
        readFully(in, padded, 0, padded.length, "data segment");
        byte[] data = padded.length == dsl ? padded : java.util.Arrays.copyOf(padded, dsl);
        return RawPdu.wrap(bhs, ahs, data);
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
