package org.jtarget.ha.link;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The connection manager's private data of the replication link: who asks (so that a listener
 * takes its one peer only) and, in a reject, why not. Big-endian:
 *
 * <pre>
 * connect request  magic "JTHA" | version u8 (1) | u8 length | sender's node name | u8 length | the node it wants
 *                  [| lane u8 | link u64]   (absent: lane 0 of link 0)
 * accept           magic "JTHA" | version u8
 * reject           magic "JTHA" | version u8 | why, UTF-8 (for the log)
 * </pre>
 */
public final class LinkHandshake {

    static final int MAGIC = 0x4A544841; // "JTHA"
    static final int VERSION = 1;

    private LinkHandshake() {
    }

    /**
     * A connect request or its decoding: {@code from} asks for {@code to}, for lane {@code lane}
     * of the link the dialer numbered {@code link} (its lane 0 names the number, the other lanes
     * join only the link of that number).
     */
    public record Request(String from, String to, int lane, long link) {
    }

    public static byte[] request(String from, String to) {
        return request(from, to, 0, 0);
    }

    public static byte[] request(String from, String to, int lane, long link) {
        byte[] f = from.getBytes(StandardCharsets.UTF_8);
        byte[] t = to.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + 2 + f.length + t.length + 9).putInt(MAGIC).put((byte) VERSION)
                .put((byte) f.length).put(f).put((byte) t.length).put(t).put((byte) lane).putLong(link).array();
    }

    /** The request, or null when the bytes are not a version-1 replication request. */
    public static Request decodeRequest(byte[] data) {
        try {
            ByteBuffer b = ByteBuffer.wrap(data);
            if (b.getInt() != MAGIC || b.get() != VERSION) {
                return null;
            }
            String from = string(b);
            String to = string(b);
            return b.remaining() >= 9 ? new Request(from, to, b.get() & 0xff, b.getLong()) : new Request(from, to, 0, 0);
        } catch (RuntimeException e) {
            return null;
        }
    }

    public static byte[] accept() {
        return ByteBuffer.allocate(5).putInt(MAGIC).put((byte) VERSION).array();
    }

    public static boolean isAccept(byte[] data) {
        return data != null && data.length >= 5 && ByteBuffer.wrap(data).getInt() == MAGIC;
    }

    public static byte[] reject(String why) {
        byte[] w = why.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(w.length, 180);
        return ByteBuffer.allocate(5 + n).putInt(MAGIC).put((byte) VERSION).put(w, 0, n).array();
    }

    /** A reject's reason, or a description of private data that is not ours. */
    public static String describeReject(byte[] data) {
        if (data == null || data.length < 5 || ByteBuffer.wrap(data).getInt() != MAGIC) {
            return "rejected by something that is not a jtarget replication listener";
        }
        return new String(data, 5, data.length - 5, StandardCharsets.UTF_8);
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.get() & 0xff];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
