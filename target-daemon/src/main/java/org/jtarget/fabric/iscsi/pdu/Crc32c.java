package org.jtarget.fabric.iscsi.pdu;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The iSCSI digest: CRC32C (Castagnoli, RFC 3385; RFC 7143 13.1 "CRC32C"), computed over
 * {@link ByteBuf} ranges without copying (heap arrays directly, direct and composite buffers
 * through {@link ByteBuf#nioBuffers(int, int)}).
 *
 * <p>Wire placement: the 32-bit result goes on the wire least significant byte first. RFC 7143
 * Appendix B.4 (RFC 3720 B.4) gives 32 zero bytes -> bytes {@code aa 36 91 8a} in transmission
 * order, i.e. the little-endian form of {@code 0x8a9136aa}; Linux and libiscsi do the same. Use
 * {@link ByteBuf#writeIntLE}/{@link ByteBuf#getIntLE} with {@link #value()}.
 *
 * <p>One instance per codec (per channel): it is stateful and not thread-safe, which avoids an
 * allocation per PDU on the hot path.
 */
public final class Crc32c {

    private final CRC32C crc = new CRC32C();

    /** Starts a new digest. */
    public Crc32c reset() {
        crc.reset();
        return this;
    }

    /** Adds {@code length} bytes of {@code buf} from absolute {@code index} (indices untouched). */
    public Crc32c update(ByteBuf buf, int index, int length) {
        if (length == 0) {
            return this;
        }
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (buf.nioBufferCount() == 1) {
            crc.update(buf.nioBuffer(index, length));
        } else {
            for (ByteBuffer b : buf.nioBuffers(index, length)) {
                crc.update(b);
            }
        }
        return this;
    }

    /**
     * Like {@link #update(ByteBuf, int, int)} for a buffer this thread owns (the decoder's receive
     * buffer on its event loop): reads through the buffer's cached internal NIO view, so a digest
     * costs no {@code ByteBuffer} duplicate. Never use it on a buffer other threads may touch.
     */
    public Crc32c updateOwned(ByteBuf buf, int index, int length) {
        if (length == 0 || buf.hasArray() || buf.nioBufferCount() != 1) {
            return update(buf, index, length);
        }
        crc.update(buf.internalNioBuffer(index, length));
        return this;
    }

    /** Adds all readable bytes of {@code buf}. */
    public Crc32c update(ByteBuf buf) {
        return update(buf, buf.readerIndex(), buf.readableBytes());
    }

    /** Adds {@code count} zero bytes (data segment padding, RFC 7143 11.2.3: covered by the DataDigest). */
    public Crc32c updateZeros(int count) {
        for (int i = 0; i < count; i++) {
            crc.update(0);
        }
        return this;
    }

    /** The CRC32C so far, as the int to write little-endian. */
    public int value() {
        return (int) crc.getValue();
    }

    /** One-shot CRC32C of a range (allocates; for tests and control paths). */
    public static int of(ByteBuf buf, int index, int length) {
        return new Crc32c().update(buf, index, length).value();
    }
}
