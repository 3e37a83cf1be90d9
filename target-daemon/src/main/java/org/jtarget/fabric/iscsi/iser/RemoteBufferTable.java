package org.jtarget.fabric.iscsi.iser;

/**
 * The initiator's buffers of the commands of one iSER connection, by Initiator Task Tag: the
 * read STag and base offset (where Data-In is RDMA WRITTEN) and the write STag and base offset
 * (where Data-Out is RDMA READ from), as the iSER header of each SCSI Command announced them
 * (RFC 7145 9.2). The RDMA transport records them when the command arrives, before the engine
 * has a task for it, and finds them again when the engine moves the task's data.
 *
 * <p>Open addressing with linear probing in preallocated parallel arrays, so recording and
 * finding a command allocate nothing; removal shifts the following entries back (no tombstones,
 * so a long-lived connection never degrades). One thread: the connection's loop.
 */
final class RemoteBufferTable {

    private final int[] itts;
    private final boolean[] used;
    private final boolean[] readValid;
    private final int[] readStags;
    private final long[] readBases;
    private final boolean[] writeValid;
    private final int[] writeStags;
    private final long[] writeBases;
    private final int mask;
    private final int limit;
    private int size;

    /** @param commands the most commands a connection may have in flight (the table holds twice as many slots) */
    RemoteBufferTable(int commands) {
        int capacity = Integer.highestOneBit(Math.max(4, commands) * 2 - 1) << 1;
        itts = new int[capacity];
        used = new boolean[capacity];
        readValid = new boolean[capacity];
        readStags = new int[capacity];
        readBases = new long[capacity];
        writeValid = new boolean[capacity];
        writeStags = new int[capacity];
        writeBases = new long[capacity];
        mask = capacity - 1;
        limit = commands;
    }

    /**
     * Records the buffers of the command tagged {@code itt} (replacing what an earlier command
     * with that tag left).
     *
     * @return false if the table already holds as many commands as the connection may have
     */
    boolean put(int itt, IserHeader header) {
        int slot = find(itt);
        if (slot < 0) {
            if (size >= limit) {
                return false;
            }
            slot = freeSlotFor(itt);
            used[slot] = true;
            itts[slot] = itt;
            size++;
        }
        readValid[slot] = header.readStagValid();
        readStags[slot] = header.readStag();
        readBases[slot] = header.readBaseOffset();
        writeValid[slot] = header.writeStagValid();
        writeStags[slot] = header.writeStag();
        writeBases[slot] = header.writeBaseOffset();
        return true;
    }

    /** The slot of {@code itt}, or -1. */
    int find(int itt) {
        for (int i = home(itt); used[i]; i = (i + 1) & mask) {
            if (itts[i] == itt) {
                return i;
            }
        }
        return -1;
    }

    /** Forgets {@code itt}; the entries after it in its probe run move back into the gap. */
    void remove(int itt) {
        int gap = find(itt);
        if (gap < 0) {
            return;
        }
        used[gap] = false;
        size--;
        for (int i = (gap + 1) & mask; used[i]; i = (i + 1) & mask) {
            int home = home(itts[i]);
            // i's entry may fill the gap unless its home lies cyclically in (gap, i]
            boolean homeBetween = gap <= i ? gap < home && home <= i : gap < home || home <= i;
            if (!homeBetween) {
                move(i, gap);
                gap = i;
            }
        }
    }

    int size() {
        return size;
    }

    boolean readValid(int slot) { return readValid[slot]; }
    int readStag(int slot) { return readStags[slot]; }
    long readBase(int slot) { return readBases[slot]; }
    boolean writeValid(int slot) { return writeValid[slot]; }
    int writeStag(int slot) { return writeStags[slot]; }
    long writeBase(int slot) { return writeBases[slot]; }

    private int freeSlotFor(int itt) {
        int i = home(itt);
        while (used[i]) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void move(int from, int to) {
        used[to] = true;
        used[from] = false;
        itts[to] = itts[from];
        readValid[to] = readValid[from];
        readStags[to] = readStags[from];
        readBases[to] = readBases[from];
        writeValid[to] = writeValid[from];
        writeStags[to] = writeStags[from];
        writeBases[to] = writeBases[from];
    }

    /** Initiators number tasks densely (Linux: index | age << 24): mix the bits so runs do not cluster. */
    private int home(int itt) {
        int h = itt * 0x9E3779B9;
        return (h ^ h >>> 16) & mask;
    }
}
