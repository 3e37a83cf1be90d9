package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DataPatternTest {

    @Test
    void fillRepeatsTheByte() throws Exception {
        byte[] b = new byte[5];
        DataPattern.parse("0xA5").next(b, 4);
        assertThat(b).containsExactly(0xa5, 0xa5, 0xa5, 0xa5, 0);
        DataPattern.parse("7").next(b, 5);
        assertThat(b).containsOnly(7);
    }

    @Test
    void randomStreamDependsOnlyOnSeedNotOnChunking() throws Exception {
        byte[] whole = new byte[100];
        DataPattern.parse("random:42").next(whole, 100);
        DataPattern p = DataPattern.parse("random:42");
        byte[] a = new byte[48];
        byte[] b = new byte[52];
        p.next(a, 48);   // a multiple of 8: chunks of whole blocks always are
        p.next(b, 52);
        byte[] joined = new byte[100];
        System.arraycopy(a, 0, joined, 0, 48);
        System.arraycopy(b, 0, joined, 48, 52);
        assertThat(joined).isEqualTo(whole);
        byte[] other = new byte[100];
        DataPattern.parse("random:43").next(other, 100);
        assertThat(other).isNotEqualTo(whole);
    }
}
