package org.jtarget.fabric.iscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The decoder's {@link IscsiPduFramer#HEADROOM_CUMULATOR}: reads that arrive with free headroom
 * (as the TCP fabric's receive allocator makes them) get a short unfinished PDU moved in front,
 * so every PDU is framed from one buffer and names it as its data root.
 */
class IscsiPduFramerHeadroomTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final int HEADROOM = 16 * 1024;

    /** A stream of SCSI Data-Out PDUs with data lengths cycling through {@code lengths}. */
    private static byte[] stream(int count, int... lengths) {
        ByteBuf all = Unpooled.buffer();
        for (int i = 0; i < count; i++) {
            int n = lengths[i % lengths.length];
            ByteBuf data = Unpooled.buffer(n);
            for (int j = 0; j < n; j++) {
                data.writeByte(i * 13 + j * 7);
            }
            IscsiPdu pdu = IscsiPdu.create(ALLOC, Opcode.SCSI_DATA_OUT, data);
            pdu.initiatorTaskTag(i);
            EmbeddedChannel enc = new EmbeddedChannel(new IscsiPduEncoder());
            enc.writeOutbound(pdu);
            ByteBuf part;
            while ((part = enc.readOutbound()) != null) {
                all.writeBytes(part);
                part.release();
            }
            enc.finishAndReleaseAll();
        }
        byte[] bytes = new byte[all.readableBytes()];
        all.readBytes(bytes);
        all.release();
        return bytes;
    }

    /** A pooled direct buffer laid out like a socket read: headroom, then the bytes. */
    private static ByteBuf read(byte[] wire, int from, int length, int headroom) {
        ByteBuf b = ALLOC.directBuffer(headroom + length);
        b.setIndex(headroom, headroom);
        b.writeBytes(wire, from, length);
        return b;
    }

    private static List<IscsiPdu> decode(byte[] wire, int readSize, int headroom) {
        EmbeddedChannel ch = new EmbeddedChannel(new IscsiPduFramer(1024 * 1024));
        List<IscsiPdu> out = new ArrayList<>();
        for (int i = 0; i < wire.length; i += readSize) {
            ch.writeInbound(read(wire, i, Math.min(readSize, wire.length - i), headroom));
            Object o;
            while ((o = ch.readInbound()) != null) {
                out.add((IscsiPdu) o);
            }
        }
        assertThat(ch.finishAndReleaseAll()).isFalse();
        return out;
    }

    /** Checks every PDU's data, through data() and (when known) through its root. */
    private static int checkAndCountRooted(List<IscsiPdu> pdus, int count, int... lengths) {
        assertThat(pdus).hasSize(count);
        int rooted = 0;
        for (int i = 0; i < count; i++) {
            IscsiPdu pdu = pdus.get(i);
            int n = lengths[i % lengths.length];
            assertThat(pdu.initiatorTaskTag()).isEqualTo(i);
            assertThat(pdu.data().readableBytes()).isEqualTo(n);
            ByteBuf root = pdu.dataRoot();
            byte[] viaData = new byte[n];
            pdu.data().getBytes(pdu.data().readerIndex(), viaData); // bulk: PARANOID records each access
            byte[] viaRoot = new byte[n];
            if (root != null) {
                root.getBytes(pdu.dataRootIndex(), viaRoot);
            }
            for (int j = 0; j < n; j++) {
                byte expected = (byte) (i * 13 + j * 7);
                if (viaData[j] != expected || (root != null && viaRoot[j] != expected)) {
                    throw new AssertionError("pdu " + i + " byte " + j + " differs (root " + root + ")");
                }
            }
            rooted += root == null ? 0 : 1;
            pdu.release();
        }
        return rooted;
    }

    @Test
    void shortTailsMoveIntoHeadroomSoEveryPduHasARoot() {
        int[] lengths = {4096, 512, 0, 8192, 4100};
        byte[] wire = stream(200, lengths);
        for (int readSize : new int[] {1000, 4096, 6000, 65536}) {
            int rooted = checkAndCountRooted(decode(wire, readSize, HEADROOM), 200, lengths);
            assertThat(rooted).as("read size %d", readSize).isEqualTo(200 - 40); // all but the empty ones
        }
    }

    @Test
    void tailsLongerThanTheHeadroomAreChainedAndStillDecode() {
        int[] lengths = {64 * 1024, 100};
        byte[] wire = stream(20, lengths);
        List<IscsiPdu> pdus = decode(wire, 10_000, HEADROOM);
        int rooted = checkAndCountRooted(pdus, 20, lengths);
        assertThat(rooted).as("the 100-byte PDUs still get roots").isGreaterThanOrEqualTo(1).isLessThan(20);
    }

    @Test
    void readsWithoutHeadroomFallBackToAComposite() {
        int[] lengths = {4096};
        byte[] wire = stream(30, lengths);
        List<IscsiPdu> pdus = decode(wire, 3000, 0);
        checkAndCountRooted(pdus, 30, lengths);
    }
}
