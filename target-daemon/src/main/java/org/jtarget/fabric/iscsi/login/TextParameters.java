package org.jtarget.fabric.iscsi.login;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.List;
import java.util.Map;

/**
 * iSCSI text key=value pairs (RFC 7143 6.1): UTF-8, each pair terminated by a NUL.
 * API CONTRACT (implemented by the pdu/login work).
 */
public final class TextParameters {

    private TextParameters() {
    }

    /** Parses the readable bytes (borrows buf). Null if malformed (no '=', bad UTF-8, key too long). */
    public static List<Map.Entry<String, String>> parse(ByteBuf buf) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }

    /** Encodes the pairs, each NUL-terminated, into a new buffer. */
    public static ByteBuf encode(List<Map.Entry<String, String>> pairs, ByteBufAllocator alloc) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }
}
