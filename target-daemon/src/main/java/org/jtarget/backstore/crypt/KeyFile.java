package org.jtarget.backstore.crypt;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;

/**
 * A store's key file: {@code <state-dir>/keys/<backstore name>.key}, the 64 raw bytes key1 || key2
 * (as a LUKS/cryptsetup key file), mode 0600 in a 0700 folder. Written atomically and durably
 * (temporary file, fsync, rename over the old file, fsync of the folder) so that a crash leaves
 * either the old key or the new one, never a torn one.
 *
 * <p>{@link #replace} (cryptographic erase) also overwrites the old file's bytes with zeros through
 * a channel opened before the rename, so the old key does not linger in the freed blocks of the
 * file system (best effort: a copy-on-write file system or an SSD may keep old blocks; put the
 * state directory on storage you trust for that).
 */
final class KeyFile {

    private KeyFile() {
    }

    /** Where the key of store {@code name} lives; characters outside [A-Za-z0-9._-] are hex-escaped. */
    static Path of(Path stateDir, String name) {
        StringBuilder b = new StringBuilder();
        for (byte c : name.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            if (Character.isLetterOrDigit(c) && c > 0 || c == '.' && b.length() > 0 || c == '_' || c == '-') {
                b.append((char) c);
            } else {
                b.append('%').append(String.format("%02X", c & 0xFF));
            }
        }
        return stateDir.resolve("keys").resolve(b + ".key");
    }

    /** Reads a key file, which must hold exactly one XTS-AES-256 key. */
    static XtsKey load(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        try {
            if (bytes.length != XtsKey.XTS_AES_256_BYTES) {
                throw new IOException(file + " holds " + bytes.length + " bytes, not a "
                        + XtsKey.XTS_AES_256_BYTES + "-byte XTS-AES-256 key");
            }
            return XtsKey.of(bytes);
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    /** Writes {@code key} as the key file, atomically; creates the keys folder (0700) if needed. */
    static void write(Path file, XtsKey key) throws IOException {
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        byte[] material = key.material();
        try (FileChannel ch = FileChannel.open(tmp, java.util.Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ByteBuffer buf = ByteBuffer.wrap(material);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        } finally {
            Arrays.fill(material, (byte) 0);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        syncDirectory(dir);
    }

    /**
     * Replaces the key file by {@code next} (atomically, as {@link #write}), then overwrites the
     * replaced file's bytes with zeros and syncs them.
     */
    static void replace(Path file, XtsKey next) throws IOException {
        FileChannel old = Files.exists(file) ? FileChannel.open(file, StandardOpenOption.WRITE) : null;
        try {
            write(file, next);
            if (old != null) {
                ByteBuffer zeros = ByteBuffer.allocate(XtsKey.XTS_AES_256_BYTES);
                long at = 0;
                while (zeros.hasRemaining()) {
                    at += old.write(zeros, at);
                }
                old.force(true);
            }
        } finally {
            if (old != null) {
                old.close();
            }
        }
    }

    /** fsync of the folder makes the rename durable (POSIX). */
    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
