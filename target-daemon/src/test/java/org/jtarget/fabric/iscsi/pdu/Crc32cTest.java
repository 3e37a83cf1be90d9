package org.jtarget.fabric.iscsi.pdu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Vectors from RFC 3720 / RFC 7143 Appendix B.4, as the bytes appear on the wire. */
class Crc32cTest {

    private static byte[] wire(byte[] input) {
        ByteBuf in = Unpooled.wrappedBuffer(input);
        ByteBuf out = Unpooled.buffer(4).writeIntLE(Crc32c.of(in, 0, input.length));
        byte[] b = new byte[4];
        out.getBytes(0, b);
        return b;
    }

    private static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    @Test
    void thirtyTwoZerosGiveAa36918a() {
        assertThat(wire(new byte[32])).containsExactly(bytes(0xaa, 0x36, 0x91, 0x8a));
    }

    @Test
    void thirtyTwoOnesGive43aba862() {
        byte[] in = new byte[32];
        java.util.Arrays.fill(in, (byte) 0xff);
        assertThat(wire(in)).containsExactly(bytes(0x43, 0xab, 0xa8, 0x62));
    }

    @Test
    void incrementingGive4e79dd46() {
        byte[] in = new byte[32];
        for (int i = 0; i < 32; i++) {
            in[i] = (byte) i;
        }
        assertThat(wire(in)).containsExactly(bytes(0x4e, 0x79, 0xdd, 0x46));
    }

    @Test
    void compositeAndDirectBuffersGiveTheSameValue() {
        byte[] in = new byte[100];
        for (int i = 0; i < in.length; i++) {
            in[i] = (byte) (i * 7);
        }
        int expected = Crc32c.of(Unpooled.wrappedBuffer(in), 0, in.length);
        CompositeByteBuf composite = Unpooled.compositeBuffer();
        composite.addComponent(true, Unpooled.directBuffer().writeBytes(in, 0, 33));
        composite.addComponent(true, Unpooled.buffer().writeBytes(in, 33, 67));
        try {
            assertThat(Crc32c.of(composite, 0, 100)).isEqualTo(expected);
            assertThat(new Crc32c().update(composite, 0, 10).update(composite, 10, 90).value()).isEqualTo(expected);
        } finally {
            composite.release();
        }
    }

    @Test
    void pooledDirectBuffersAndTheirSlicesGiveTheSameValueTwiceInARow() {
        byte[] in = new byte[4096 + 48];
        for (int i = 0; i < in.length; i++) {
            in[i] = (byte) (i * 31 + 5);
        }
        int whole = Crc32c.of(Unpooled.wrappedBuffer(in), 0, in.length);
        int tail = Crc32c.of(Unpooled.wrappedBuffer(in), 48, 4096);
        ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(in.length).writeBytes(in);
        try {
            Crc32c crc = new Crc32c();
            // twice: the pooled buffer's cached NIO view must not keep state from the first use
            assertThat(crc.reset().update(pooled, 0, in.length).value()).isEqualTo(whole);
            assertThat(crc.reset().update(pooled, 0, in.length).value()).isEqualTo(whole);
            assertThat(crc.reset().update(pooled, 48, 4096).value()).isEqualTo(tail);
            ByteBuf slice = pooled.retainedSlice(48, 4096); // a Data-Out payload as the decoder hands it out
            try {
                assertThat(crc.reset().update(slice).value()).isEqualTo(tail);
                assertThat(crc.reset().update(slice, 0, 2048).update(slice, 2048, 2048).value()).isEqualTo(tail);
            } finally {
                slice.release();
            }
            assertThat(pooled.readerIndex()).isZero();
            assertThat(pooled.writerIndex()).isEqualTo(in.length);
        } finally {
            pooled.release();
        }
    }

    @Test
    void zerosMatchExplicitPadding() {
        ByteBuf data = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 0, 0, 0});
        assertThat(new Crc32c().update(data, 0, 5).updateZeros(3).value()).isEqualTo(Crc32c.of(data, 0, 8));
    }

    @Test
    void ownedUpdateMatchesTheSharedOneOnDirectHeapAndCompositeBuffers() {
        byte[] in = new byte[4096 + 48];
        for (int i = 0; i < in.length; i++) {
            in[i] = (byte) (i * 11);
        }
        ByteBuf direct = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(in.length).writeBytes(in);
        ByteBuf heap = Unpooled.wrappedBuffer(in);
        ByteBuf composite = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(in, 0, 100), Unpooled.wrappedBuffer(in, 100, in.length - 100));
        try {
            for (ByteBuf buf : new ByteBuf[] {direct, heap, composite}) {
                int expected = Crc32c.of(buf, 48, 4096);
                assertThat(new Crc32c().updateOwned(buf, 48, 4096).value()).as(buf.toString()).isEqualTo(expected);
                assertThat(new Crc32c().updateOwned(buf, 48, 1000).updateOwned(buf, 1048, 3096).value()).isEqualTo(expected);
            }
        } finally {
            direct.release();
            composite.release();
        }
    }
}
