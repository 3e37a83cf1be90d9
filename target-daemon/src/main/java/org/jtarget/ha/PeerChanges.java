package org.jtarget.ha;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What a new secondary changed on its own, per store, as its CHANGED messages list it (one link's
 * worth, kept by the primary): block ranges the primary's copy must overwrite at the secondary
 * besides what the primary's own log holds. Filled on the link's loop, read by the resync thread.
 */
final class PeerChanges {

    /** One range of blocks. */
    record Range(long lba, long blocks) {
    }

    private final List<List<Range>> ranges = new ArrayList<>();
    private final List<CountDownLatch> ended = new ArrayList<>();

    PeerChanges(int stores) {
        for (int i = 0; i < stores; i++) {
            ranges.add(new ArrayList<>());
            ended.add(new CountDownLatch(1));
        }
    }

    /** Records one message of the store's list; {@code last} ends the list. */
    void add(int store, long lba, long blocks, boolean last) {
        if (blocks > 0) {
            synchronized (this) {
                ranges.get(store).add(new Range(lba, blocks));
            }
        }
        if (last) {
            ended.get(store).countDown();
        }
    }

    /** Waits until the store's list ended; its ranges, or null when it did not end in time. */
    List<Range> await(int store, long timeoutMillis) throws InterruptedException {
        if (!ended.get(store).await(timeoutMillis, TimeUnit.MILLISECONDS)) {
            return null;
        }
        synchronized (this) {
            return List.copyOf(ranges.get(store));
        }
    }
}
