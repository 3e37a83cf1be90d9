package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The bytes of a {@link org.jtarget.ha.link.LinkHeader#STATE} message: which unit's state, and
 * the core's record for it, which this layer never reads.
 * <pre>
 * 0 version u8 (1) | 1 key length u16 | 3 key (UTF-8) | record length u32 | record
 * </pre>
 *
 * @param key    the core's name for the state (a logical unit and a kind of state)
 * @param record the core's opaque record
 */
record StateMessage(String key, byte[] record) {

    static final int VERSION = 1;
    static final int MAX_KEY = 4096;
    /** The most bytes a message adds to its record: version, key length, key, record length. */
    static final int OVERHEAD = 1 + 2 + MAX_KEY + 4;

    /** The message's length in bytes. */
    int length() {
        return 1 + 2 + key.getBytes(StandardCharsets.UTF_8).length + 4 + record.length;
    }

    /** A heap buffer holding the message. */
    ByteBuf encode() {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        if (k.length > MAX_KEY) {
            throw new IllegalArgumentException("state key of " + k.length + " bytes");
        }
        ByteBuf b = Unpooled.buffer(length());
        b.writeByte(VERSION).writeShort(k.length).writeBytes(k).writeInt(record.length).writeBytes(record);
        return b;
    }

    /**
     * Reads the readable bytes of {@code b} (not changing its indexes).
     *
     * @throws IOException naming what is wrong with a message this node cannot read
     */
    static StateMessage decode(ByteBuf b) throws IOException {
        int at = b.readerIndex();
        int end = b.writerIndex();
        if (end - at < 3) {
            throw new IOException("STATE message of " + (end - at) + " bytes, shorter than its header");
        }
        int version = b.getUnsignedByte(at);
        if (version != VERSION) {
            throw new IOException("STATE message version " + version + ", this node reads " + VERSION);
        }
        int keyLength = b.getUnsignedShort(at + 1);
        if (keyLength > MAX_KEY || end - at < 3 + keyLength + 4) {
            throw new IOException("STATE message of " + (end - at) + " bytes cut short in its key of " + keyLength);
        }
        String key = b.toString(at + 3, keyLength, StandardCharsets.UTF_8);
        long recordLength = b.getUnsignedInt(at + 3 + keyLength);
        int recordAt = at + 3 + keyLength + 4;
        if (recordLength != end - recordAt) {
            throw new IOException("STATE message for " + key + ": record of " + recordLength + " bytes, "
                    + (end - recordAt) + " bytes follow");
        }
        byte[] record = new byte[(int) recordLength];
        b.getBytes(recordAt, record);
        return new StateMessage(key, record);
    }
}
