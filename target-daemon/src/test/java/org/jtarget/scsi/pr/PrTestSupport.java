package org.jtarget.scsi.pr;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.spi.ITNexus;

import java.nio.ByteBuffer;

/** CDB and parameter list builders for the reservation tests. */
final class PrTestSupport {

    static final int GOOD = 0x00;
    static final int CHECK_CONDITION = 0x02;
    static final int RESERVATION_CONFLICT = 0x18;

    private final CoreHarness h;

    PrTestSupport(CoreHarness h) {
        this.h = h;
    }

    static byte[] prOutCdb(int sa, int type, int length) {
        return new byte[] {0x5F, (byte) sa, (byte) type, 0, 0, (byte) (length >>> 24), (byte) (length >>> 16),
                (byte) (length >>> 8), (byte) length, 0};
    }

    static byte[] prInCdb(int sa, int alloc) {
        return new byte[] {0x5E, (byte) sa, 0, 0, 0, 0, 0, (byte) (alloc >>> 8), (byte) alloc, 0};
    }

    static byte[] params(long key, long saKey, int flags) {
        return ByteBuffer.allocate(24).putLong(key).putLong(saKey).putInt(0).put((byte) flags).array();
    }

    Result out(ITNexus n, int sa, int type, byte[] params) {
        return h.run(n, prOutCdb(sa, type, params.length), params.length, params);
    }

    Result out(ITNexus n, int sa, int type, long key, long saKey, int flags) {
        return out(n, sa, type, params(key, saKey, flags));
    }

    Result register(ITNexus n, long key) {
        return out(n, 6, 0, 0, key, 0); // REGISTER AND IGNORE EXISTING KEY
    }

    Result reserve(ITNexus n, long key, int type) {
        return out(n, 1, type, key, 0, 0);
    }

    Result in(ITNexus n, int sa) {
        return h.run(n, prInCdb(sa, 8192), 8192, null);
    }

    Result read10(ITNexus n) {
        return h.run(n, new byte[] {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0}, 512, null);
    }

    Result write10(ITNexus n) {
        return h.run(n, new byte[] {0x2A, 0, 0, 0, 0, 0, 0, 0, 1, 0}, 512, new byte[512]);
    }

    Result tur(ITNexus n) {
        return h.run(n, new byte[6], 0, null);
    }

    static int u32(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 4).getInt();
    }

    static long u64(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 8).getLong();
    }
}
