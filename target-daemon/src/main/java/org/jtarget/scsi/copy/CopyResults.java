package org.jtarget.scsi.copy;

import org.jtarget.scsi.spi.ITNexus;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The COPY STATUS held for recent EXTENDED COPY commands of one logical unit (SPC-4 6.18.3),
 * keyed by I_T nexus and LIST IDENTIFIER. Bounded: when full, the oldest finished entry is
 * dropped (SPC-4 allows discarding held data when the resources are needed). An entry is
 * discarded once its final status has been read, on I_T nexus loss, and when a new copy
 * reuses the list identifier. Control path only; synchronized.
 */
public final class CopyResults {

    /** SPC-4 table "COPY MANAGER STATUS": 00h in progress, 01h good, 02h failed. */
    public static final int IN_PROGRESS = 0x00;
    public static final int COMPLETED_GOOD = 0x01;
    public static final int COMPLETED_FAILED = 0x02;

    private static final int CAPACITY = 64;

    /** One copy's status. Fields are written under the table's monitor. */
    public static final class Entry {
        final ITNexus nexus;
        final int listId;
        final boolean hold;
        int status = IN_PROGRESS;
        int segmentsProcessed;
        long bytesTransferred;

        Entry(ITNexus nexus, int listId, boolean hold) {
            this.nexus = nexus;
            this.listId = listId;
            this.hold = hold;
        }
    }

    /** A snapshot for RECEIVE COPY RESULTS. */
    public record Status(int status, int segmentsProcessed, long bytesTransferred) {
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();

    /**
     * Starts tracking a copy.
     *
     * @param hold keep the status for RECEIVE COPY RESULTS once done (LIST ID USAGE 00b); else
     *             the entry only guards the list identifier while the copy runs (10b)
     * @return the entry, or null if a copy with this list identifier is still running on this
     *         nexus (SPC-4 6.4.3.2: OPERATION IN PROGRESS)
     */
    public synchronized Entry start(ITNexus nexus, int listId, boolean hold) {
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.nexus.equals(nexus) && e.listId == listId) {
                if (e.status == IN_PROGRESS) {
                    return null;
                }
                it.remove();
            }
        }
        if (entries.size() >= CAPACITY) {
            dropOldestFinished();
        }
        Entry e = new Entry(nexus, listId, hold);
        entries.addLast(e);
        return e;
    }

    private void dropOldestFinished() {
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            if (it.next().status != IN_PROGRESS) {
                it.remove();
                return;
            }
        }
    }

    /** Records progress: one more segment done, {@code bytes} more moved. */
    public synchronized void progress(Entry e, int segments, long bytes) {
        if (e == null) {
            return; // LIST ID USAGE 11b: nothing is tracked
        }
        e.segmentsProcessed += segments;
        e.bytesTransferred += bytes;
    }

    /** Records the end of a copy. */
    public synchronized void finish(Entry e, boolean good) {
        if (e == null) {
            return;
        }
        e.status = good ? COMPLETED_GOOD : COMPLETED_FAILED;
        if (!e.hold) {
            entries.remove(e);
        }
    }

    /**
     * The status of {@code listId} for {@code nexus}, or null if none is held. A finished copy's
     * status is discarded once returned (SPC-4 6.18.3).
     */
    public synchronized Status read(ITNexus nexus, int listId) {
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.nexus.equals(nexus) && e.listId == listId) {
                if (e.status != IN_PROGRESS) {
                    it.remove();
                }
                return new Status(e.status, e.segmentsProcessed, e.bytesTransferred);
            }
        }
        return null;
    }

    /** I_T nexus loss: held data of that nexus is discarded. */
    public synchronized void nexusLost(ITNexus nexus) {
        entries.removeIf(e -> e.nexus.equals(nexus) && e.status != IN_PROGRESS);
    }

    /** Number of copies of this LU still running (MAXIMUM CONCURRENT COPIES). */
    public synchronized int running() {
        int n = 0;
        for (Entry e : entries) {
            if (e.status == IN_PROGRESS) {
                n++;
            }
        }
        return n;
    }
}
