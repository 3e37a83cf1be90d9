package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.rdma.Decoded;

import static org.assertj.core.api.Assertions.fail;

/** What the SRP codec tests share: hex to bytes, and the two sides of {@link Decoded}. */
final class SrpTestSupport {

    private SrpTestSupport() {
    }

    /** The bytes of {@code hex}; spaces are for the reader. */
    static byte[] bytes(String hex) {
        return ByteBufUtil.decodeHexDump(hex.replace(" ", ""));
    }

    /** A buffer holding {@code hex}, writer index at its end. */
    static ByteBuf buffer(String hex) {
        return Unpooled.wrappedBuffer(bytes(hex));
    }

    static <T> T ok(Decoded<T> decoded) {
        if (decoded instanceof Decoded.Ok<T>(T value)) {
            return value;
        }
        return fail("expected a well-formed IU, got " + decoded);
    }

    static String malformed(Decoded<?> decoded) {
        if (decoded instanceof Decoded.Malformed<?>(String reason)) {
            return reason;
        }
        return fail("expected a malformed IU, got " + decoded);
    }
}
