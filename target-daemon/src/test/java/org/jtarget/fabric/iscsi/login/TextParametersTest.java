package org.jtarget.fabric.iscsi.login;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TextParametersTest {

    private static List<Map.Entry<String, String>> parse(String s) {
        return TextParameters.parse(Unpooled.copiedBuffer(s, StandardCharsets.UTF_8));
    }

    @Test
    void parsesNulTerminatedPairsInOrder() {
        assertThat(parse("InitiatorName=iqn.x\0SessionType=Discovery\0"))
                .containsExactly(Map.entry("InitiatorName", "iqn.x"), Map.entry("SessionType", "Discovery"));
    }

    @Test
    void valuesMayContainEqualsAndBeEmpty() {
        assertThat(parse("X-a=b=c\0SendTargets=\0")).containsExactly(Map.entry("X-a", "b=c"), Map.entry("SendTargets", ""));
    }

    @Test
    void strayNulsAndMissingLastNulAreTolerated() {
        assertThat(parse("\0A=1\0\0B=2")).containsExactly(Map.entry("A", "1"), Map.entry("B", "2"));
    }

    @Test
    void malformedTextIsNull() {
        assertThat(parse("NoEquals\0")).isNull();
        assertThat(parse("=value\0")).isNull();
        assertThat(parse("Bad Key=1\0")).isNull();
        assertThat(parse("K".repeat(64) + "=1\0")).isNull();
        assertThat(parse("K".repeat(63) + "=1\0")).hasSize(1);
        assertThat(parse("K=" + "v".repeat(8193) + "\0")).isNull();
        assertThat(TextParameters.parse(Unpooled.wrappedBuffer(new byte[] {'K', '=', (byte) 0xc3, 0}))).isNull();
    }

    @Test
    void utf8ValuesRoundTrip() {
        List<Map.Entry<String, String>> pairs = List.of(Map.entry("InitiatorAlias", "disque-été"), Map.entry("A", ""));
        ByteBuf buf = TextParameters.encode(pairs, ByteBufAllocator.DEFAULT);
        try {
            assertThat(buf.getByte(buf.writerIndex() - 1)).isZero();
            assertThat(TextParameters.parse(buf)).isEqualTo(pairs);
        } finally {
            buf.release();
        }
    }
}
