package org.jtarget.initiator.cli;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The bytes {@code write --pattern} sends and {@code verify --pattern} expects: one repeated
 * byte ({@code 0xA5}, {@code 165}) or a pseudo-random stream ({@code random:SEED}) that starts
 * at the first block of the range, so the same seed over the same range gives the same data.
 */
public sealed interface DataPattern extends DataSource permits DataPattern.Fill, DataPattern.Random {

    /** Parses {@code BYTE} (decimal or 0x hex, 0..255) or {@code random:SEED}. */
    static DataPattern parse(String text) throws CliFailure {
        if (text.startsWith("random:")) {
            try {
                return new Random(Long.decode(text.substring("random:".length())));
            } catch (NumberFormatException e) {
                throw CliFailure.usage("bad --pattern '" + text + "': SEED must be a number");
            }
        }
        try {
            int b = Integer.decode(text);
            if (b >= 0 && b <= 255) {
                return new Fill((byte) b);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw CliFailure.usage("bad --pattern '" + text + "': expected a byte 0..255 (or 0xNN) or random:SEED");
    }

    /** Every byte is {@code value}. */
    record Fill(byte value) implements DataPattern {
        @Override
        public void next(byte[] chunk, int length) {
            Arrays.fill(chunk, 0, length, value);
        }
    }

    /** A seeded stream; not thread-safe, one per transfer. */
    final class Random implements DataPattern {
        private final long seed;
        private final SplittableRandom random;

        Random(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
        }

        public long seed() {
            return seed;
        }

        @Override
        public void next(byte[] chunk, int length) {
            for (int i = 0; i < length; i += 8) {
                long v = random.nextLong();
                for (int j = 0; j < 8 && i + j < length; j++) {
                    chunk[i + j] = (byte) (v >>> (8 * j));
                }
            }
        }
    }
}
