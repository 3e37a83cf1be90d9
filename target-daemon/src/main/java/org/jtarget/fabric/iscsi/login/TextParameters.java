package org.jtarget.fabric.iscsi.login;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * iSCSI text key=value pairs (RFC 7143 6.1): UTF-8, each pair terminated by a NUL.
 *
 * <pre>
 *  key=value\0key=value\0...      key: 1..63 bytes of [A-Za-z0-9.-+@_#]; value: UTF-8
 * </pre>
 *
 * The parser checks the generic limits only (value at most {@link #MAX_VALUE_LENGTH} bytes, the
 * largest any key allows); the per-key limit of 255 bytes (RFC 7143 6.1) is the negotiator's
 * job, which answers Reject for it. Empty pairs (stray NULs) are skipped; a last pair without
 * its NUL is accepted (robustness: the data segment length delimits it anyway).
 */
public final class TextParameters {

    /** RFC 7143 6.1: "A key name ... MUST NOT exceed 63 bytes". */
    public static final int MAX_KEY_LENGTH = 63;
    /** The longest value of any key: CHAP binary values, 1024 bytes hex-encoded, are the largest (RFC 7143 6.1, 12.1.3). */
    public static final int MAX_VALUE_LENGTH = 8192;
    /** RFC 7143 6.1: unless a key says otherwise, a value is at most 255 bytes. */
    public static final int MAX_STANDARD_VALUE_LENGTH = 255;

    private TextParameters() {
    }

    /** Parses the readable bytes (borrows buf). Null if malformed (no '=', bad UTF-8, key too long). */
    public static List<Map.Entry<String, String>> parse(ByteBuf buf) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        int end = buf.writerIndex();
        int at = buf.readerIndex();
        while (at < end) {
            int nul = buf.indexOf(at, end, (byte) 0);
            int pairEnd = nul < 0 ? end : nul;
            if (pairEnd > at) {
                Map.Entry<String, String> pair = parsePair(buf, at, pairEnd, utf8);
                if (pair == null) {
                    return null;
                }
                pairs.add(pair);
            }
            at = pairEnd + 1;
        }
        return pairs;
    }

    private static Map.Entry<String, String> parsePair(ByteBuf buf, int from, int to, CharsetDecoder utf8) {
        int eq = buf.indexOf(from, to, (byte) '=');
        if (eq <= from || eq - from > MAX_KEY_LENGTH || to - eq - 1 > MAX_VALUE_LENGTH) {
            return null;
        }
        for (int i = from; i < eq; i++) {
            if (!keyChar(buf.getByte(i))) {
                return null;
            }
        }
        String key = buf.toString(from, eq - from, StandardCharsets.US_ASCII);
        try {
            ByteBuffer value = buf.nioBuffer(eq + 1, to - eq - 1);
            return Map.entry(key, utf8.reset().decode(value).toString());
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** RFC 7143 6.1: key names use letters, digits, '.', '-', '+', '@' and '_'; '#' for X# keys (RFC 7143 13.22). */
    private static boolean keyChar(byte b) {
        return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
                || b == '.' || b == '-' || b == '+' || b == '@' || b == '_' || b == '#';
    }

    /** Encodes the pairs, each NUL-terminated, into a new buffer. */
    public static ByteBuf encode(List<Map.Entry<String, String>> pairs, ByteBufAllocator alloc) {
        int size = 0;
        for (Map.Entry<String, String> p : pairs) {
            size += p.getKey().length() + p.getValue().length() * 3 + 2;
        }
        ByteBuf buf = alloc.buffer(Math.max(size, 1));
        for (Map.Entry<String, String> p : pairs) {
            buf.writeCharSequence(p.getKey(), StandardCharsets.UTF_8);
            buf.writeByte('=');
            buf.writeCharSequence(p.getValue(), StandardCharsets.UTF_8);
            buf.writeByte(0);
        }
        return buf;
    }
}
