package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;

/**
 * iSER's Hello and HelloReply messages (RFC 7145 9.3, 9.4), exchanged on iWARP before the login
 * when the initiator chooses to: the initiator declares the iSER versions it speaks and its
 * iSER-IRD, the target answers with its iSER-ORD and the version chosen, or rejects. Both are
 * 12 bytes, big-endian:
 *
 * <pre>
 *   Hello:      byte 0 opcode 0x2 in the high nibble; byte 1 MaxVer (high nibble) | MinVer;
 *               bytes 2-3 iSER-IRD; bytes 4-11 reserved
 *   HelloReply: byte 0 opcode 0x3 in the high nibble | reject flag 0x01; byte 1 MaxVer | CurVer;
 *               bytes 2-3 iSER-ORD; bytes 4-11 reserved
 * </pre>
 *
 * (Field order as in illumos' iser_xfer.h and Wireshark's iSER dissector; Linux's initiator and
 * isert never send either.)
 */
public final class IserHello {

    /** The only iSER version (RFC 7145 9.3: 1). */
    public static final int VERSION = 1;
    /** HelloReply byte 0: the target rejects the initiator's versions. */
    public static final int REJECT_FLAG = 0x01;

    private IserHello() {
    }

    /** A Hello: the initiator's version range and its iSER-IRD. */
    public record Hello(int maxVersion, int minVersion, int ird) {
    }

    /** A HelloReply: rejected or not, the target's highest version, the version in use, its iSER-ORD. */
    public record HelloReply(boolean rejected, int maxVersion, int currentVersion, int ord) {
    }

    /** Decodes a Hello of {@code length} bytes at {@code index}. */
    public static Decoded<Hello> decodeHello(ByteBuf in, int index, int length) {
        String bad = check(in, index, length, IserHeader.HELLO);
        if (bad != null) {
            return Decoded.malformed(bad);
        }
        int versions = in.getUnsignedByte(index + 1);
        int max = versions >>> 4;
        int min = versions & 0x0f;
        if (min > max) {
            return Decoded.malformed("Hello with MinVer " + min + " above MaxVer " + max);
        }
        return Decoded.ok(new Hello(max, min, in.getUnsignedShort(index + 2)));
    }

    /** Decodes a HelloReply of {@code length} bytes at {@code index}. */
    public static Decoded<HelloReply> decodeHelloReply(ByteBuf in, int index, int length) {
        String bad = check(in, index, length, IserHeader.HELLO_REPLY);
        if (bad != null) {
            return Decoded.malformed(bad);
        }
        int versions = in.getUnsignedByte(index + 1);
        boolean rejected = (in.getUnsignedByte(index) & REJECT_FLAG) != 0;
        return Decoded.ok(new HelloReply(rejected, versions >>> 4, versions & 0x0f, in.getUnsignedShort(index + 2)));
    }

    private static String check(ByteBuf in, int index, int length, int opcode) {
        if (length < IserHeader.HELLO_LENGTH || in.writerIndex() - index < IserHeader.HELLO_LENGTH) {
            return "iSER " + (opcode == IserHeader.HELLO ? "Hello" : "HelloReply") + " of " + length
                    + " bytes, expected " + IserHeader.HELLO_LENGTH;
        }
        int actual = in.getUnsignedByte(index) >>> 4;
        return actual == opcode ? null : "iSER opcode 0x" + Integer.toHexString(actual) + " where 0x"
                + Integer.toHexString(opcode) + " was expected";
    }

    /** Writes a Hello (12 bytes) at the writer index. */
    public static void encodeHello(ByteBuf out, Hello hello) {
        out.writeByte(IserHeader.HELLO << 4);
        out.writeByte(hello.maxVersion() << 4 | hello.minVersion());
        out.writeShort(hello.ird());
        out.writeZero(8);
    }

    /** Writes a HelloReply (12 bytes) at the writer index. */
    public static void encodeHelloReply(ByteBuf out, HelloReply reply) {
        out.writeByte(IserHeader.HELLO_REPLY << 4 | (reply.rejected() ? REJECT_FLAG : 0));
        out.writeByte(reply.maxVersion() << 4 | reply.currentVersion());
        out.writeShort(reply.ord());
        out.writeZero(8);
    }

    /**
     * The target's answer to a Hello (RFC 7145 9.4): version 1 if the initiator's range holds it,
     * else a reject naming the target's highest version.
     *
     * @param ord the target's iSER-ORD: how many RDMA READs it issues at once
     */
    public static HelloReply answer(Hello hello, int ord) {
        boolean supported = hello.minVersion() <= VERSION && VERSION <= hello.maxVersion();
        return new HelloReply(!supported, VERSION, supported ? VERSION : 0, ord);
    }
}
