package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.iscsi.spi.TaskTransfer;

/**
 * The RDMA READs and WRITEs of one iSER connection in flight, by slot (the slot is the work
 * request's id): the registered buffer each one reads into or writes from, its length and, for a
 * READ of Data-Out, the task it fetches for. Preallocated arrays and a stack of free slots: a
 * transfer allocates nothing. One thread: the connection's loop.
 */
final class DataTransfers {

    private final ByteBuf[] buffers;
    private final int[] lengths;
    private final TaskTransfer[] tasks;
    private final int[] free;
    private int freeCount;

    DataTransfers(int capacity) {
        buffers = new ByteBuf[capacity];
        lengths = new int[capacity];
        tasks = new TaskTransfer[capacity];
        free = new int[capacity];
        for (int i = capacity - 1; i >= 0; i--) {
            free[freeCount++] = i;
        }
    }

    /** Takes a slot for {@code buf} (owned by the table until {@link #free}); -1 when all are in use. */
    int take(ByteBuf buf, int length, TaskTransfer task) {
        if (freeCount == 0) {
            return -1;
        }
        int slot = free[--freeCount];
        buffers[slot] = buf;
        lengths[slot] = length;
        tasks[slot] = task;
        return slot;
    }

    /** The task a READ fetches for; null for a WRITE. */
    TaskTransfer task(int slot) {
        return tasks[slot];
    }

    int length(int slot) {
        return lengths[slot];
    }

    /** Frees the slot and hands its buffer to the caller. */
    ByteBuf free(int slot) {
        ByteBuf b = buffers[slot];
        buffers[slot] = null;
        tasks[slot] = null;
        free[freeCount++] = slot;
        return b;
    }

    /** The connection is gone: every buffer still held is released. */
    void releaseAll() {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                free(i).release();
            }
        }
    }
}
