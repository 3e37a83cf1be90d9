package org.jtarget.scsi.lun;

/** CDB builders for tests. */
public final class Cdbs {
    private Cdbs() {
    }

    public static byte[] of(int... b) {
        byte[] r = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = (byte) b[i];
        }
        return r;
    }

    public static byte[] rw10(int op, int flags, long lba, int len) {
        return of(op, flags, (int) (lba >>> 24), (int) (lba >>> 16), (int) (lba >>> 8), (int) lba, 0,
                len >>> 8, len, 0);
    }

    public static byte[] rw12(int op, int flags, long lba, int len) {
        return of(op, flags, (int) (lba >>> 24), (int) (lba >>> 16), (int) (lba >>> 8), (int) lba,
                len >>> 24, len >>> 16, len >>> 8, len, 0, 0);
    }

    public static byte[] rw16(int op, int flags, long lba, long len) {
        byte[] c = new byte[16];
        c[0] = (byte) op;
        c[1] = (byte) flags;
        for (int i = 0; i < 8; i++) {
            c[2 + i] = (byte) (lba >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            c[10 + i] = (byte) (len >>> (24 - 8 * i));
        }
        return c;
    }

    public static byte[] rw6(int op, int lba, int len) {
        return of(op, (lba >>> 16) & 0x1F, lba >>> 8, lba, len, 0);
    }

    public static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }
}
