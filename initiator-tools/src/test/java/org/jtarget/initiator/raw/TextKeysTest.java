package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TextKeysTest {

    @Test
    void encodeTerminatesEachPairWithNul() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("HeaderDigest", "None");
        keys.put("MaxRecvDataSegmentLength", "8192");

        assertThat(new String(TextKeys.encode(keys), StandardCharsets.UTF_8))
                .isEqualTo("HeaderDigest=None\0MaxRecvDataSegmentLength=8192\0");
    }

    @Test
    void decodeKeepsOrderAndSkipsPadding() {
        byte[] data = "A=1\0B=x=y\0\0\0".getBytes(StandardCharsets.UTF_8);

        assertThat(TextKeys.decode(data)).containsExactly(Map.entry("A", "1"), Map.entry("B", "x=y"));
    }

    @Test
    void decodeAllKeepsRepeatedKeys() {
        byte[] data = "TargetName=t1\0TargetAddress=a:1,1\0TargetName=t2\0".getBytes(StandardCharsets.UTF_8);

        assertThat(TextKeys.decodeAll(data)).containsExactly("TargetName=t1", "TargetAddress=a:1,1", "TargetName=t2");
    }

    @Test
    void aStringWithoutEqualsMapsToEmptyValue() {
        assertThat(TextKeys.decode("Orphan\0".getBytes(StandardCharsets.UTF_8))).containsEntry("Orphan", "");
    }
}
