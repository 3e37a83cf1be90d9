package org.jtarget.fabric.iscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.jtarget.fabric.iscsi.pdu.Crc32c;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.PduDecodeError;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Round trips through {@link IscsiPduEncoder} and {@link IscsiPduFramer}, at every fragment size. */
class IscsiPduCodecTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final int MAX = 512 * 1024;

    /** A PDU of some shape: opcode, AHS words, data length; fields filled with recognisable values. */
    private static IscsiPdu pdu(int opcode, int ahsWords, int dataLength) {
        ByteBuf data = ALLOC.buffer(Math.max(dataLength, 1));
        for (int i = 0; i < dataLength; i++) {
            data.writeByte(i * 31 + 7);
        }
        IscsiPdu pdu = IscsiPdu.create(ALLOC, opcode, data);
        if (ahsWords > 0) {
            ByteBuf ahs = ALLOC.buffer(ahsWords * 4);
            for (int i = 0; i < ahsWords * 4; i++) {
                ahs.writeByte(0xa0 + i);
            }
            IscsiPdu withAhs = new IscsiPdu(pdu.bhs().retain(), ahs, pdu.data().retain());
            pdu.release();
            pdu = withAhs;
            pdu.totalAhsLength(ahsWords);
        }
        pdu.finalFlag(true);
        pdu.initiatorTaskTag(0x12345678);
        pdu.cmdSn(42);
        pdu.word44(0xcafebabe);
        return pdu;
    }

    /** Encodes and returns the wire bytes. */
    private static byte[] encode(IscsiPdu pdu, boolean hd, boolean dd) {
        IscsiPduEncoder encoder = new IscsiPduEncoder();
        encoder.configure(hd, dd);
        EmbeddedChannel ch = new EmbeddedChannel(encoder);
        assertThat(ch.writeOutbound(pdu)).isTrue();
        ByteBuf all = Unpooled.buffer();
        ByteBuf part;
        int parts = 0;
        while ((part = ch.readOutbound()) != null) {
            all.writeBytes(part);
            part.release();
            parts++;
        }
        assertThat(parts).isGreaterThan(0);
        assertThat(ch.finishAndReleaseAll()).isFalse();
        byte[] bytes = ByteBufUtil.getBytes(all);
        all.release();
        return bytes;
    }

    private static EmbeddedChannel decoder(boolean hd, boolean dd, int max) {
        IscsiPduFramer decoder = new IscsiPduFramer(max);
        decoder.configure(hd, dd, max);
        return new EmbeddedChannel(decoder);
    }

    /** Feeds the bytes in fragments of the given size; returns everything decoded. */
    private static List<Object> feed(EmbeddedChannel ch, byte[] wire, int fragment) {
        for (int i = 0; i < wire.length; i += fragment) {
            ch.writeInbound(Unpooled.copiedBuffer(wire, i, Math.min(fragment, wire.length - i)));
        }
        List<Object> out = new ArrayList<>();
        Object o;
        while ((o = ch.readInbound()) != null) {
            out.add(o);
        }
        return out;
    }

    private static void roundTrip(int opcode, int ahsWords, int dataLength, boolean hd, boolean dd, int maxFragment) {
        IscsiPdu original = pdu(opcode, ahsWords, dataLength);
        byte[] expectedBhs = ByteBufUtil.getBytes(original.bhs());
        byte[] expectedAhs = ByteBufUtil.getBytes(original.ahs());
        byte[] expectedData = ByteBufUtil.getBytes(original.data());
        byte[] wire = encode(original, hd, dd);
        int padded = (dataLength + 3) & ~3;
        assertThat(wire.length).isEqualTo(48 + ahsWords * 4 + (hd ? 4 : 0) + padded + (dd && dataLength > 0 ? 4 : 0));
        for (int fragment = 1; fragment <= Math.min(maxFragment, wire.length); fragment++) {
            EmbeddedChannel ch = decoder(hd, dd, MAX);
            List<Object> out = feed(ch, wire, fragment);
            assertThat(out).as("fragment %d", fragment).hasSize(1);
            IscsiPdu decoded = (IscsiPdu) out.get(0);
            assertThat(ByteBufUtil.getBytes(decoded.bhs())).isEqualTo(expectedBhs);
            assertThat(ByteBufUtil.getBytes(decoded.ahs())).isEqualTo(expectedAhs);
            assertThat(ByteBufUtil.getBytes(decoded.data())).isEqualTo(expectedData);
            assertThat(decoded.dataSegmentLength()).isEqualTo(dataLength);
            assertThat(decoded.totalAhsLength()).isEqualTo(ahsWords);
            decoded.release();
            assertThat(ch.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void everyShapeRoundTripsAtEveryFragmentSize() {
        int[] lengths = {0, 1, 2, 3, 4, 5, 8, 13};
        for (boolean hd : new boolean[] {false, true}) {
            for (boolean dd : new boolean[] {false, true}) {
                for (int len : lengths) {
                    for (int ahs : new int[] {0, 1, 3}) {
                        roundTrip(Opcode.SCSI_COMMAND, ahs, len, hd, dd, Integer.MAX_VALUE);
                    }
                }
            }
        }
    }

    @Test
    void everyInitiatorOpcodeIsAccepted() {
        for (int op : new int[] {Opcode.NOP_OUT, Opcode.SCSI_COMMAND, Opcode.TASK_MGMT_REQUEST, Opcode.LOGIN_REQUEST,
                Opcode.TEXT_REQUEST, Opcode.SCSI_DATA_OUT, Opcode.LOGOUT_REQUEST, Opcode.SNACK_REQUEST}) {
            roundTrip(op, 0, 6, true, true, 7);
        }
    }

    @Test
    void bigDataSegmentRoundTripsWithoutLoss() {
        for (int fragment : new int[] {1460, 4096, 65536, 300_000}) {
            IscsiPdu original = pdu(Opcode.SCSI_DATA_OUT, 0, 262_145);
            byte[] data = ByteBufUtil.getBytes(original.data());
            byte[] wire = encode(original, true, true);
            EmbeddedChannel ch = decoder(true, true, MAX);
            List<Object> out = feed(ch, wire, fragment);
            assertThat(out).hasSize(1);
            IscsiPdu decoded = (IscsiPdu) out.get(0);
            assertThat(ByteBufUtil.getBytes(decoded.data())).isEqualTo(data);
            decoded.release();
            assertThat(ch.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void severalPdusInOneReadAllDecode() {
        byte[] a = encode(pdu(Opcode.NOP_OUT, 0, 0), true, true);
        byte[] b = encode(pdu(Opcode.SCSI_COMMAND, 1, 10), true, true);
        byte[] c = encode(pdu(Opcode.SCSI_DATA_OUT, 0, 4096), true, true);
        byte[] all = concat(a, b, c);
        for (int fragment : new int[] {1, 3, 47, 48, 100, all.length}) {
            EmbeddedChannel ch = decoder(true, true, MAX);
            List<Object> out = feed(ch, all, fragment);
            assertThat(out).hasSize(3);
            assertThat(((IscsiPdu) out.get(0)).opcode()).isEqualTo(Opcode.NOP_OUT);
            assertThat(((IscsiPdu) out.get(1)).opcode()).isEqualTo(Opcode.SCSI_COMMAND);
            assertThat(((IscsiPdu) out.get(2)).dataSegmentLength()).isEqualTo(4096);
            out.forEach(o -> ((IscsiPdu) o).release());
            assertThat(ch.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void headerDigestIsLittleEndianCrcOverBhs() {
        byte[] wire = encode(pdu(Opcode.NOP_OUT, 0, 0), true, false);
        int crc = Crc32c.of(Unpooled.wrappedBuffer(wire), 0, 48);
        assertThat(Unpooled.wrappedBuffer(wire).getIntLE(48)).isEqualTo(crc);
    }

    @Test
    void dataDigestErrorIsReportedAndDecodingContinues() {
        byte[] bad = encode(pdu(Opcode.SCSI_DATA_OUT, 0, 10), true, true);
        bad[48 + 4 + 3] ^= 1;
        byte[] good = encode(pdu(Opcode.NOP_OUT, 0, 5), true, true);
        for (int fragment = 1; fragment <= 20; fragment++) {
            EmbeddedChannel ch = decoder(true, true, MAX);
            List<Object> out = feed(ch, concat(bad, good), fragment);
            assertThat(out).hasSize(2);
            PduDecodeError error = (PduDecodeError) out.get(0);
            assertThat(error.rejectReason()).isEqualTo(RejectReason.DATA_DIGEST_ERROR);
            assertThat(error.fatal()).isFalse();
            assertThat(error.header().readableBytes()).isEqualTo(48);
            assertThat(error.header().getByte(0) & 0x3f).isEqualTo(Opcode.SCSI_DATA_OUT);
            assertThat(((IscsiPdu) out.get(1)).opcode()).isEqualTo(Opcode.NOP_OUT);
            out.forEach(o -> ((io.netty.util.ReferenceCounted) o).release());
            assertThat(ch.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void corruptPaddingIsADataDigestError() {
        byte[] bad = encode(pdu(Opcode.SCSI_DATA_OUT, 0, 1), false, true);
        bad[48 + 2] = 1;
        EmbeddedChannel ch = decoder(false, true, MAX);
        List<Object> out = feed(ch, bad, bad.length);
        assertThat(out).singleElement().isInstanceOf(PduDecodeError.class);
        ((PduDecodeError) out.get(0)).release();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void headerDigestErrorIsFatalAndLaterInputIsDiscarded() {
        byte[] bad = encode(pdu(Opcode.SCSI_COMMAND, 0, 8), true, true);
        bad[20] ^= 0x40;
        byte[] good = encode(pdu(Opcode.NOP_OUT, 0, 0), true, true);
        EmbeddedChannel ch = decoder(true, true, MAX);
        List<Object> out = feed(ch, concat(bad, good, good), 5);
        assertThat(out).hasSize(1);
        PduDecodeError error = (PduDecodeError) out.get(0);
        assertThat(error.fatal()).isTrue();
        assertThat(error.rejectReason()).isEqualTo(RejectReason.PROTOCOL_ERROR);
        error.release();
        assertThat(feed(ch, good, 7)).isEmpty();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void oversizedDataSegmentIsFatal() {
        byte[] wire = encode(pdu(Opcode.SCSI_DATA_OUT, 0, 8193), false, false);
        EmbeddedChannel ch = decoder(false, false, 8192);
        // the error comes as soon as the header is in, before the data segment arrives
        List<Object> out = feed(ch, java.util.Arrays.copyOf(wire, 48), 48);
        assertThat(out).singleElement().isInstanceOfSatisfying(PduDecodeError.class, e -> {
            assertThat(e.fatal()).isTrue();
            assertThat(e.rejectReason()).isEqualTo(RejectReason.PROTOCOL_ERROR);
        });
        ((PduDecodeError) out.get(0)).release();
        assertThat(feed(ch, wire, 100)).isEmpty();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void unknownOpcodeIsRejectedAndSkipped() {
        byte[] unknown = encode(pdu(0x1c, 1, 9), true, true);
        byte[] targetOpcode = encode(pdu(Opcode.SCSI_RESPONSE, 0, 0), true, true);
        byte[] good = encode(pdu(Opcode.NOP_OUT, 0, 0), true, true);
        for (int fragment = 1; fragment <= 60; fragment += 7) {
            EmbeddedChannel ch = decoder(true, true, MAX);
            List<Object> out = feed(ch, concat(unknown, targetOpcode, good), fragment);
            assertThat(out).hasSize(3);
            assertThat(((PduDecodeError) out.get(0)).rejectReason()).isEqualTo(RejectReason.COMMAND_NOT_SUPPORTED);
            assertThat(((PduDecodeError) out.get(0)).fatal()).isFalse();
            assertThat(((PduDecodeError) out.get(1)).rejectReason()).isEqualTo(RejectReason.COMMAND_NOT_SUPPORTED);
            assertThat(((IscsiPdu) out.get(2)).opcode()).isEqualTo(Opcode.NOP_OUT);
            out.forEach(o -> ((io.netty.util.ReferenceCounted) o).release());
            assertThat(ch.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void initiatorSideDecoderAcceptsTargetOpcodes() {
        byte[] wire = encode(pdu(Opcode.SCSI_DATA_IN, 0, 3), false, false);
        EmbeddedChannel ch = new EmbeddedChannel(new IscsiPduFramer(MAX, false));
        List<Object> out = feed(ch, wire, 5);
        assertThat(out).singleElement().isInstanceOf(IscsiPdu.class);
        ((IscsiPdu) out.get(0)).release();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void configureSwitchesDigestsBetweenPdus() {
        IscsiPduFramer decoder = new IscsiPduFramer(8192);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        List<Object> first = feed(ch, encode(pdu(Opcode.LOGIN_REQUEST, 0, 20), false, false), 64);
        assertThat(first).hasSize(1);
        ((IscsiPdu) first.get(0)).release();
        decoder.configure(true, true, MAX);
        List<Object> second = feed(ch, encode(pdu(Opcode.SCSI_COMMAND, 0, 20), true, true), 64);
        assertThat(second).singleElement().isInstanceOf(IscsiPdu.class);
        ((IscsiPdu) second.get(0)).release();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }
}
