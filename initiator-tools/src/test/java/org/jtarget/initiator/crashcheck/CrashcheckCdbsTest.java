package org.jtarget.initiator.crashcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void modeSenseAsksForTheCurrentCachingPageWithoutBlockDescriptors() {
        byte[] cdb = CrashcheckCdbs.modeSenseCaching();
        assertThat(cdb).containsExactly(0x5a, 0x08, 0x08, 0, 0, 0, 0, 0, (byte) 255, 0);
        assertThat(CrashcheckCdbs.name(cdb)).isEqualTo("MODE SENSE (10)");
    }

    @Test
    void wceIsReadFromTheCachingPageAfterAnyBlockDescriptors() {
        byte[] off = {0, 26, 0, 0x10, 0, 0, 0, 0, /* page */ 0x08, 18, 0x00, 0};
        assertThat(CrashcheckCdbs.writeCacheEnabled(off)).isFalse();
        byte[] on = off.clone();
        on[10] = 0x04;
        assertThat(CrashcheckCdbs.writeCacheEnabled(on)).isTrue();
        byte[] withDescriptor = new byte[8 + 8 + 4];
        withDescriptor[7] = 8; // one short block descriptor the target sent despite DBD
        withDescriptor[16] = (byte) 0x88; // PS=1, caching page
        withDescriptor[18] = 0x04;
        assertThat(CrashcheckCdbs.writeCacheEnabled(withDescriptor)).isTrue();
    }

    @Test
    void dataWithoutACachingPageIsRejected() {
        assertThatThrownBy(() -> CrashcheckCdbs.writeCacheEnabled(new byte[6]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CrashcheckCdbs.writeCacheEnabled(new byte[] {0, 10, 0, 0, 0, 0, 0, 0, 0x0a, 10, 4}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no caching page");
    }
}
