package org.jtarget.initiator.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The data of rping's ping number {@code n} in a buffer of {@code size} bytes, as rping's client
 * makes it: the text {@code rdma-ping-<n>: }, then ASCII letters and punctuation from 'A' (65) to
 * 'z' (122) cycling, starting at {@code 'A' + n % 58}, and a NUL in the last byte, so the buffer
 * prints as one C string. A peer that knows {@code n} can therefore check every byte.
 */
public final class PingPattern {

    /** The first character of the cycle. */
    static final int FIRST = 65;
    /** The last character of the cycle. */
    static final int LAST = 122;
    private static final int CYCLE = LAST - FIRST + 1;

    /**
     * rping's smallest size: room for the text with the longest ping number (a 32-bit int, 10 digits)
     * plus rping's own margin (sizeof of the number's string and of the format string, 11 + 15).
     */
    public static final int MIN_SIZE = 26;
    /** rping's largest size (its 64 KiB buffer less one byte). */
    public static final int MAX_SIZE = 64 * 1024 - 1;

    private PingPattern() {
    }

    /** Byte {@code i} of ping {@code n}'s data in a buffer of {@code size} bytes. */
    static byte expected(byte[] prefix, int n, int size, long i) {
        if (i == size - 1) {
            return 0;
        }
        if (i < prefix.length) {
            return prefix[(int) i];
        }
        return (byte) (FIRST + (Integer.remainderUnsigned(n, CYCLE) + (i - prefix.length)) % CYCLE);
    }

    /** The leading text of ping {@code n}. */
    static byte[] prefix(int n) {
        return ("rdma-ping-" + n + ": ").getBytes(StandardCharsets.US_ASCII);
    }

    /** Fills the first {@code size} bytes of {@code dst} with ping {@code n}'s data. */
    public static void fill(MemorySegment dst, int n, int size) {
        byte[] prefix = prefix(n);
        for (long i = 0; i < size; i++) {
            dst.set(ValueLayout.JAVA_BYTE, i, expected(prefix, n, size, i));
        }
    }

    /**
     * Where the first {@code size} bytes of {@code data} differ from ping {@code n}'s data: the
     * offset of the first wrong byte, or -1 if they are all right.
     */
    public static long firstMismatch(MemorySegment data, int n, int size) {
        byte[] prefix = prefix(n);
        for (long i = 0; i < size; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, i) != expected(prefix, n, size, i)) {
                return i;
            }
        }
        return -1;
    }

    /** The C string at the start of {@code data}: its bytes up to the first NUL, at most {@code max}. */
    public static String text(MemorySegment data, int max) {
        int len = cStringLength(data, max);
        return new String(data.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }

    /** strlen(3) of the data, bounded by {@code max} when there is no NUL before it. */
    public static int cStringLength(MemorySegment data, int max) {
        for (int i = 0; i < max; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return i;
            }
        }
        return max;
    }
}
