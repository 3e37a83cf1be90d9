package org.jtarget.initiator.crashcheck;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CrashcheckCdbsTest {

    @Test
    void tenByteFormsWhileTheLbaFitsInThirtyTwoBits() {
        byte[] w = CrashcheckCdbs.write(0x01020304L, true);
        assertThat(w).containsExactly(0x2a, 0x08, 1, 2, 3, 4, 0, 0, 1, 0);
        byte[] plain = CrashcheckCdbs.write(5, false);
        assertThat(plain[1]).as("no FUA").isZero();
        byte[] sync = CrashcheckCdbs.synchronizeCache(0xffffffffL);
        assertThat(sync).containsExactly(0x35, 0, -1, -1, -1, -1, 0, 0, 1, 0);
    }

    @Test
    void sixteenByteFormsBeyond() {
        byte[] w = CrashcheckCdbs.write(0x100000000L, true);
        assertThat(w).containsExactly(0x8a, 0x08, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
        byte[] sync = CrashcheckCdbs.synchronizeCache(0x100000000L);
        assertThat(sync[0] & 0xff).isEqualTo(0x91);
        assertThat(CrashcheckCdbs.name(sync)).isEqualTo("SYNCHRONIZE CACHE (16)");
    }
}
