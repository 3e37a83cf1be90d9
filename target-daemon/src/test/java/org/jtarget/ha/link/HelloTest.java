package org.jtarget.ha.link;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.rdma.Decoded;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The HELLO body: what one node encodes the other decodes, and short bodies are malformed, not exceptions. */
class HelloTest {

    private static final Hello HELLO = new Hello("a", true, 7, "b", 0x1234, 0x7000_0000L, 65536, 16, List.of(1, 3),
            List.of(new Hello.Store("disk", 512, 1 << 23, Hello.DATA_CHANGED, true),
                    new Hello.Store("logs", 4096, 1000, Hello.DATA_MISSING, false)));

    @Test
    void decodesWhatWasEncodedWithEachStoresStateAndZeroUnmapFlag() {
        ByteBuf b = Unpooled.buffer();
        HELLO.encode(b);
        assertThat(b.readableBytes()).isEqualTo(HELLO.encodedLength());
        assertThat(Hello.decode(b)).isEqualTo(Decoded.ok(HELLO));
    }

    @Test
    void aTruncatedBodyIsMalformed() {
        ByteBuf b = Unpooled.buffer();
        HELLO.encode(b);
        b.writerIndex(b.writerIndex() - 1); // the last store's flags are missing
        assertThat(Hello.decode(b)).isInstanceOf(Decoded.Malformed.class);
    }
}
