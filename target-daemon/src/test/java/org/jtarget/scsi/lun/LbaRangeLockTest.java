package org.jtarget.scsi.lun;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LbaRangeLockTest {

    private final LbaRangeLock lock = new LbaRangeLock();
    private final List<String> granted = new ArrayList<>();

    private LbaRangeLock.Holder holder(String name) {
        return new LbaRangeLock.Holder(() -> granted.add(name));
    }

    @Test
    void sharedRangesNeverWaitForEachOther() {
        assertThat(lock.acquire(holder("a"), 0, 10, false)).isTrue();
        assertThat(lock.acquire(holder("b"), 5, 10, false)).isTrue();
        assertThat(lock.heldCount()).isEqualTo(2);
    }

    @Test
    void exclusiveWaitsForOverlappingSharedAndIsGrantedOnRelease() {
        LbaRangeLock.Holder write = holder("write");
        LbaRangeLock.Holder caw = holder("caw");
        assertThat(lock.acquire(write, 0, 4, false)).isTrue();
        assertThat(lock.acquire(caw, 3, 1, true)).isFalse();
        assertThat(granted).isEmpty();
        lock.release(write);
        assertThat(granted).containsExactly("caw");
        assertThat(caw.isHeld()).isTrue();
    }

    @Test
    void nonOverlappingExclusiveIsGrantedAtOnce() {
        assertThat(lock.acquire(holder("w"), 0, 4, false)).isTrue();
        assertThat(lock.acquire(holder("caw"), 4, 1, true)).isTrue();
    }

    @Test
    void sharedWaitsForExclusiveHolderAndForAnEarlierExclusiveWaiter() {
        LbaRangeLock.Holder w1 = holder("w1");
        LbaRangeLock.Holder caw = holder("caw");
        LbaRangeLock.Holder w2 = holder("w2");
        lock.acquire(w1, 0, 8, false);
        assertThat(lock.acquire(caw, 2, 2, true)).isFalse();
        // a later overlapping write must not overtake the waiting COMPARE AND WRITE
        assertThat(lock.acquire(w2, 3, 1, false)).isFalse();
        lock.release(w1);
        assertThat(granted).containsExactly("caw");
        lock.release(caw);
        assertThat(granted).containsExactly("caw", "w2");
        assertThat(lock.waitingCount()).isZero();
    }

    @Test
    void releasingAWaiterLeavesTheQueueAndIsIdempotent() {
        LbaRangeLock.Holder w = holder("w");
        LbaRangeLock.Holder caw = holder("caw");
        lock.acquire(w, 0, 1, false);
        lock.acquire(caw, 0, 1, true);
        lock.release(caw);
        lock.release(caw);
        lock.release(w);
        assertThat(granted).isEmpty();
        assertThat(lock.heldCount()).isZero();
        assertThat(lock.acquire(caw, 0, 1, true)).isTrue();
    }
}
