package org.jtarget.fabric.endpoint;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The private data a client and the daemon's store-endpoint listener exchange when a connection is
 * set up (the way iSER and SRP carry their own login in the connection manager's private data).
 * Big-endian:
 *
 * <pre>
 * connect request  version u8 (1) | name length u8 | endpoint name, UTF-8
 * accept           rkey u32 | block size u32 | length in bytes u64
 * reject           reason u8 ({@link Rejection}) | text, UTF-8 (for people)
 * </pre>
 *
 * The endpoint is then RDMA READ/WRITE-able with the rkey at remote addresses {@code 0..length-1},
 * whole blocks only.
 */
public final class EndpointHandshake {

    /** The connect request's version byte. */
    public static final int VERSION = 1;
    /** The listener's usual TCP port (the number RoCEv2 has on UDP; the iwarp provider is its stand-in). */
    public static final int DEFAULT_PORT = 4791;
    /** The longest endpoint name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 64;
    /** Length of the accept's private data. */
    public static final int ACCEPT_LENGTH = 16;

    /** Why a connection was refused: the reject's first byte. */
    public enum Rejection {
        /** No endpoint of that name. */
        UNKNOWN_ENDPOINT(1),
        /** The endpoint does not list the peer's address in its allowed peers. */
        PEER_NOT_ALLOWED(2),
        /** The request's private data is not a version-1 request. */
        MALFORMED_REQUEST(3),
        /** The daemon could not set the connection up (no resources, stopping). */
        UNAVAILABLE(4);

        private final int code;

        Rejection(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        static Rejection of(int code) {
            for (Rejection r : values()) {
                if (r.code == code) {
                    return r;
                }
            }
            return null;
        }
    }

    /** What an accepted connection learns: the region's rkey, its block size and its length. */
    public record Accepted(int rkey, int blockSize, long length) {

        /** The number of blocks exposed. */
        public long blockCount() {
            return length / blockSize;
        }
    }

    private EndpointHandshake() {
    }

    /** The connect request for endpoint {@code name}. */
    public static byte[] request(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        if (utf8.length == 0 || utf8.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("endpoint name must be 1.." + MAX_NAME_BYTES + " UTF-8 bytes: " + name);
        }
        return ByteBuffer.allocate(2 + utf8.length).put((byte) VERSION).put((byte) utf8.length).put(utf8).array();
    }

    /** The endpoint name a connect request asks for, or null if the request is malformed. */
    public static String requestedName(byte[] data) {
        if (data == null || data.length < 3 || (data[0] & 0xff) != VERSION) {
            return null;
        }
        int length = data[1] & 0xff;
        if (length == 0 || length > MAX_NAME_BYTES || data.length != 2 + length) {
            return null;
        }
        return new String(data, 2, length, StandardCharsets.UTF_8);
    }

    /** The accept's private data. */
    public static byte[] accept(int rkey, int blockSize, long length) {
        return ByteBuffer.allocate(ACCEPT_LENGTH).putInt(rkey).putInt(blockSize).putLong(length).array();
    }

    /** Decodes an accept's private data, or returns null if it is not one. */
    public static Accepted accepted(byte[] data) {
        if (data == null || data.length != ACCEPT_LENGTH) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        int rkey = b.getInt();
        int blockSize = b.getInt();
        long length = b.getLong();
        if (blockSize <= 0 || length <= 0 || length % blockSize != 0) {
            return null;
        }
        return new Accepted(rkey, blockSize, length);
    }

    /** A reject's private data: the reason and a text for people. */
    public static byte[] reject(Rejection reason, String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(utf8.length, org.jtarget.rdma.cm.ConnectionManager.MAX_PRIVATE_DATA - 1);
        return ByteBuffer.allocate(1 + n).put((byte) reason.code()).put(utf8, 0, n).array();
    }

    /** The reason of a reject, or null when the data carries none we know. */
    public static Rejection rejection(byte[] data) {
        return data == null || data.length == 0 ? null : Rejection.of(data[0] & 0xff);
    }

    /** A reject's text, for messages ("rejected" when it carries none). */
    public static String describeReject(byte[] data) {
        Rejection r = rejection(data);
        if (r == null) {
            return "rejected";
        }
        String text = new String(data, 1, data.length - 1, StandardCharsets.UTF_8);
        return "rejected (" + r.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ")"
                + (text.isEmpty() ? "" : ": " + text);
    }
}
