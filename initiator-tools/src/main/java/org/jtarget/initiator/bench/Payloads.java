package org.jtarget.initiator.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The bytes writes send, made once: arrays of each length a session needs (immediate data,
 * Data-Out segments, the tail of an R2T) are copies of one random block, created the first time a
 * length is asked for and reused for every later command. The content is irrelevant to a benchmark;
 * it is random so that no store can shortcut zeros. Not thread-safe (one per session).
 */
final class Payloads {

    private static final int INITIAL_LENGTHS = 4;

    private final byte[] source;
    private int[] lengths = new int[INITIAL_LENGTHS];
    private byte[][] arrays = new byte[INITIAL_LENGTHS][];
    private int known;

    /** Payloads of at most {@code maxBytes} bytes. */
    Payloads(int maxBytes, long seed) {
        source = new byte[maxBytes];
        new SplittableRandom(seed).nextBytes(source);
    }

    /** An array of exactly {@code length} bytes (shared: never modify it). */
    byte[] of(int length) {
        for (int i = 0; i < known; i++) {
            if (lengths[i] == length) {
                return arrays[i];
            }
        }
        if (known == lengths.length) {
            lengths = Arrays.copyOf(lengths, known * 2);
            arrays = Arrays.copyOf(arrays, known * 2);
        }
        lengths[known] = length;
        arrays[known] = Arrays.copyOf(source, length);
        return arrays[known++];
    }
}
