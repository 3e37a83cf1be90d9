package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.rdma.Decoded;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** iSER's wire formats (RFC 7145 9.2-9.4, Annex A) against bytes written out by hand. */
class IserCodecsTest {

    /** A SCSI Command's iSER header as Linux's ib_iser sends a READ: R set, read STag and VA. */
    private static final String READ_HEADER = "14000000" + "00000000" + "0000000000000000"
            + "00001234" + "00007f0012345600";

    @Test
    void controlHeaderOfAReadCarriesTheReadStagOnly() {
        ByteBuf in = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(READ_HEADER));
        IserHeader h = new IserHeader();
        assertThat(h.decode(in, 0, in.readableBytes())).isEqualTo(IserHeader.Status.CONTROL);
        assertThat(h.readStagValid()).isTrue();
        assertThat(h.readStag()).isEqualTo(0x1234);
        assertThat(h.readBaseOffset()).isEqualTo(0x7f0012345600L);
        assertThat(h.writeStagValid()).isFalse();
        assertThat(h.writeStag()).isZero();
    }

    @Test
    void controlHeaderRoundTripsBothStagsAtAnIndex() {
        ByteBuf out = Unpooled.buffer(40).writerIndex(40);
        IserHeader.encodeControl(out, 4, true, 0xdeadbeef, 0x1000L, true, 7, -2L);
        assertThat((int) out.getUnsignedByte(4)).isEqualTo(0x1c); // control 0x1 | W | R
        assertThat(out.getMedium(5)).isZero();              // reserved
        IserHeader h = new IserHeader();
        assertThat(h.decode(out, 4, 36)).isEqualTo(IserHeader.Status.CONTROL);
        assertThat(h.writeStag()).isEqualTo(0xdeadbeef);
        assertThat(h.writeBaseOffset()).isEqualTo(0x1000L);
        assertThat(h.readStag()).isEqualTo(7);
        assertThat(h.readBaseOffset()).isEqualTo(-2L);
    }

    @Test
    void targetHeaderIsAControlTypePduWithoutStags() {
        ByteBuf out = Unpooled.buffer(IserHeader.LENGTH).writerIndex(IserHeader.LENGTH);
        out.setByte(10, 0xff);
        IserHeader.encodeTargetControl(out, 0);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("10" + "00".repeat(27)); // Linux's ISCSI_CTRL 0x10
    }

    @Test
    void malformedHeadersAreAnswersNotExceptions() {
        IserHeader h = new IserHeader();
        ByteBuf shortControl = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(READ_HEADER.substring(0, 54)));
        assertThat(h.decode(shortControl, 0, 27)).isEqualTo(IserHeader.Status.TOO_SHORT);
        assertThat(h.readStagValid()).isFalse();
        assertThat(h.decode(Unpooled.wrappedBuffer(new byte[] {0x40, 0, 0, 0}), 0, 4))
                .isEqualTo(IserHeader.Status.UNKNOWN_OPCODE);
        assertThat(h.decode(Unpooled.EMPTY_BUFFER, 0, 0)).isEqualTo(IserHeader.Status.TOO_SHORT);
        assertThat(h.decode(Unpooled.wrappedBuffer(new byte[] {0x20, 0x11}), 0, 2))
                .isEqualTo(IserHeader.Status.TOO_SHORT); // a Hello is 12 bytes
    }

    @Test
    void helloIsRecognisedAndAnsweredWithVersionOne() {
        ByteBuf in = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("20110010" + "00".repeat(8)));
        IserHeader h = new IserHeader();
        assertThat(h.decode(in, 0, 12)).isEqualTo(IserHeader.Status.HELLO);
        Decoded<IserHello.Hello> hello = IserHello.decodeHello(in, 0, 12);
        assertThat(hello).isEqualTo(Decoded.ok(new IserHello.Hello(1, 1, 16)));

        IserHello.HelloReply reply = IserHello.answer(new IserHello.Hello(1, 1, 16), 4);
        ByteBuf out = Unpooled.buffer();
        IserHello.encodeHelloReply(out, reply);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("30110004" + "00".repeat(8));
        assertThat(IserHello.decodeHelloReply(out, 0, 12)).isEqualTo(Decoded.ok(reply));
    }

    @Test
    void helloOutsideVersionOneIsRejected() {
        IserHello.HelloReply reply = IserHello.answer(new IserHello.Hello(3, 2, 16), 4);
        assertThat(reply.rejected()).isTrue();
        ByteBuf out = Unpooled.buffer();
        IserHello.encodeHelloReply(out, reply);
        assertThat((int) out.getUnsignedByte(0)).isEqualTo(0x31);
        assertThat((int) out.getUnsignedByte(1)).isEqualTo(0x10); // MaxVer 1, no CurVer
    }

    @Test
    void malformedHellosNameTheirFault() {
        ByteBuf inverted = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("20120010" + "00".repeat(8)));
        assertThat(IserHello.decodeHello(inverted, 0, 12)).isInstanceOf(Decoded.Malformed.class);
        ByteBuf reply = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("30110004" + "00".repeat(8)));
        assertThat(IserHello.decodeHello(reply, 0, 12))
                .isEqualTo(Decoded.malformed("iSER opcode 0x3 where 0x2 was expected"));
        assertThat(IserHello.decodeHelloReply(reply, 0, 8)).isInstanceOf(Decoded.Malformed.class);
        assertThat(IserHello.decodeHello(Unpooled.wrappedBuffer(new byte[5]), 0, 12))
                .isInstanceOf(Decoded.Malformed.class); // fewer bytes than the length claims
    }

    @Test
    void cmRequestOfLinuxIserDeclaresNoZeroBasedAddressing() {
        Decoded<IserCmPrivateData> linux = IserCmPrivateData.decode(new byte[] {(byte) 0x80, 0, 0, 0});
        assertThat(linux).isEqualTo(Decoded.ok(new IserCmPrivateData(true, false)));
        assertThat(IserCmPrivateData.decode(new byte[] {(byte) 0xc0, 0, 0, 0, 9, 9}))
                .isEqualTo(Decoded.ok(new IserCmPrivateData(true, true)));
        assertThat(IserCmPrivateData.decode(new byte[0])).isEqualTo(Decoded.ok(IserCmPrivateData.LEGACY_INITIATOR));
        assertThat(IserCmPrivateData.decode(new byte[] {(byte) 0x80, 0}))
                .isEqualTo(Decoded.malformed("iSER CM header of 2 bytes, expected 4"));
    }

    @Test
    void targetAcceptsWithoutZeroBasedAddressingAndInvalidatesWhereTheInitiatorAllows() {
        assertThat(IserCmPrivateData.acceptFor(new IserCmPrivateData(true, false)).encode())
                .as("Linux ib_iser over a device that invalidates remotely").containsExactly(0x80, 0, 0, 0);
        assertThat(IserCmPrivateData.acceptFor(new IserCmPrivateData(true, true)).encode()).containsExactly(0xc0, 0, 0, 0);
        assertThat(IserCmPrivateData.acceptFor(IserCmPrivateData.LEGACY_INITIATOR).encode())
                .containsExactly(0xc0, 0, 0, 0);
    }
}
