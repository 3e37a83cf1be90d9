package org.jtarget.ha;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import static org.jtarget.ha.LogGeometry.REGIONS_PER_PAGE;
import static org.jtarget.ha.LogGeometry.WORDS_PER_PAGE;

/**
 * One bit a region, set and cleared by many threads at once, with a second bitmap of the file
 * pages changed since they were last written, so that a flush writes only those.
 *
 * <p>A bit is set before its page is marked changed, and a writer takes the mark before it copies
 * the page: a bit set concurrently is either in the copy or leaves the mark for the next write.
 */
final class RegionBitmap {

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long regionCount;
    private final long[] words;
    private final int pageCount;
    private final long[] changedPages;
    private final AtomicLong setBits = new AtomicLong();

    RegionBitmap(LogGeometry geometry) {
        regionCount = geometry.regionCount();
        words = new long[geometry.wordCount()];
        pageCount = geometry.pageCount();
        changedPages = new long[Math.ceilDiv(pageCount, Long.SIZE)];
    }

    long regionCount() {
        return regionCount;
    }

    long count() {
        return setBits.get();
    }

    boolean isSet(long region) {
        return (word(wordOf(region)) & (1L << region)) != 0;
    }

    /** Sets the regions {@code from} (inclusive) to {@code to} (exclusive). */
    void set(long from, long to) {
        for (int w = wordOf(from); from < to && w <= wordOf(to - 1); w++) {
            orWord(w, mask(w, from, to));
        }
    }

    void setAll() {
        set(0, regionCount);
    }

    /** @return whether the bit was set */
    boolean clear(long region) {
        int w = wordOf(region);
        long bit = 1L << region;
        if ((word(w) & bit) == 0) {
            return false;
        }
        long old = (long) LONGS.getAndBitwiseAnd(words, w, ~bit);
        if ((old & bit) == 0) {
            return false;
        }
        setBits.decrementAndGet();
        markChanged(w / WORDS_PER_PAGE);
        return true;
    }

    /** Any region set from {@code from} (inclusive) to {@code to} (exclusive). */
    boolean anySet(long from, long to) {
        for (int w = wordOf(from); from < to && w <= wordOf(to - 1); w++) {
            if ((word(w) & mask(w, from, to)) != 0) {
                return true;
            }
        }
        return false;
    }

    /** The first set region at or after {@code from}, or -1. */
    long next(long from) {
        return nextSetBit(words, from, regionCount);
    }

    int pageCount() {
        return pageCount;
    }

    static int pageOf(long region) {
        return (int) (region / REGIONS_PER_PAGE);
    }

    /** The first page at or after {@code from} changed since it was last taken, or -1. */
    int nextChangedPage(int from) {
        return (int) nextSetBit(changedPages, from, pageCount);
    }

    /** Clears the page's changed mark; call before {@link #copyPage} so no change is missed. */
    boolean takeChanged(int page) {
        long bit = 1L << page;
        return ((long) LONGS.getAndBitwiseAnd(changedPages, page >>> 6, ~bit) & bit) != 0;
    }

    /** Puts the page's {@link LogGeometry#BLOCK} bytes into {@code out} (little-endian order). */
    void copyPage(int page, ByteBuffer out) {
        int first = page * WORDS_PER_PAGE;
        for (int w = first; w < first + WORDS_PER_PAGE; w++) {
            out.putLong(w < words.length ? (long) LONGS.getVolatile(words, w) : 0L);
        }
    }

    /**
     * Loads a page read from the file; only before the bitmap is shared. Bits past the last region
     * are dropped, so that the count stays the count of regions.
     */
    void loadPage(int page, ByteBuffer in) {
        int first = page * WORDS_PER_PAGE;
        for (int w = first; w < first + WORDS_PER_PAGE && w < words.length; w++) {
            long value = in.getLong() & mask(w, 0, regionCount);
            words[w] = value;
            setBits.addAndGet(Long.bitCount(value));
        }
    }

    private void orWord(int w, long mask) {
        if ((word(w) & mask) == mask) {
            return; // already dirty, the usual case while degraded: no atomic write
        }
        long added = mask & ~(long) LONGS.getAndBitwiseOr(words, w, mask);
        if (added != 0) {
            setBits.addAndGet(Long.bitCount(added));
            markChanged(w / WORDS_PER_PAGE);
        }
    }

    private void markChanged(int page) {
        long bit = 1L << page;
        if ((word(changedPages, page >>> 6) & bit) == 0) {
            LONGS.getAndBitwiseOr(changedPages, page >>> 6, bit);
        }
    }

    private long word(int w) {
        return word(words, w);
    }

    private static long word(long[] array, int w) {
        return (long) LONGS.getVolatile(array, w);
    }

    private static int wordOf(long bit) {
        return (int) (bit >>> 6);
    }

    /** The bits of word {@code w} that lie from {@code from} (inclusive) to {@code to} (exclusive). */
    private static long mask(int w, long from, long to) {
        long low = (long) w << 6;
        long high = low + Long.SIZE;
        long mask = -1L;
        if (from > low) {
            mask &= -1L << (from - low);
        }
        if (to < high) {
            mask = to <= low ? 0 : mask & (-1L >>> (high - to));
        }
        return mask;
    }

    private static long nextSetBit(long[] array, long from, long limit) {
        if (from < 0) {
            throw new IllegalArgumentException("negative index: " + from);
        }
        if (from >= limit) {
            return -1;
        }
        int w = wordOf(from);
        long bits = word(array, w) & (-1L << from);
        while (bits == 0) {
            if (++w == array.length) {
                return -1;
            }
            bits = word(array, w);
        }
        long found = ((long) w << 6) + Long.numberOfTrailingZeros(bits);
        return found < limit ? found : -1;
    }
}
