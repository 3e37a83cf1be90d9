package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/**
 * Disk images for the data-integrity suites: seeded random images and SHA-256 checksums of files
 * or byte ranges of them, so a round trip through a LUN is compared by digest, not by content.
 */
final class Images {

    private static final int CHUNK = 1 << 20;

    private Images() {
    }

    /** Writes {@code bytes} seeded-random bytes (a multiple of 1 MiB) to {@code file}; returns their SHA-256. */
    static String writeRandom(Path file, long bytes, long seed) throws IOException {
        MessageDigest sha = sha256();
        Random random = new Random(seed);
        byte[] chunk = new byte[CHUNK];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long done = 0; done < bytes; done += chunk.length) {
                random.nextBytes(chunk);
                sha.update(chunk);
                out.write(chunk);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** SHA-256 of the whole file. */
    static String sha256(Path file) throws IOException {
        return sha256Range(file, 0, Files.size(file));
    }

    /** SHA-256 of {@code bytes} bytes of {@code file} from {@code offset} (fails if the file is shorter). */
    static String sha256Range(Path file, long offset, long bytes) throws IOException {
        MessageDigest sha = sha256();
        byte[] buf = new byte[CHUNK];
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            in.seek(offset);
            for (long left = bytes; left > 0; ) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                assertThat(n).as(file + " ended " + left + " bytes before " + (offset + bytes)).isPositive();
                sha.update(buf, 0, n);
                left -= n;
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** SHA-256 of {@code bytes} zero bytes (what a never-written range of a LUN holds). */
    static String sha256Zeros(long bytes) {
        MessageDigest sha = sha256();
        byte[] zeros = new byte[CHUNK];
        for (long left = bytes; left > 0; left -= zeros.length) {
            sha.update(zeros, 0, (int) Math.min(zeros.length, left));
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
