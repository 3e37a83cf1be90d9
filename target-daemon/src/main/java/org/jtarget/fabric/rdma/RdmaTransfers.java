package org.jtarget.fabric.rdma;

import io.netty.buffer.ByteBuf;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;

/**
 * The RDMA READs and WRITEs of one connection in flight (iSER, SRP), by slot (the slot is the work
 * request's id): the registered buffer each one reads into or writes from, its length and, for a
 * READ of data-out, the task it fetches for. Preallocated arrays and a stack of free slots: a
 * transfer allocates nothing. One thread: the connection's loop.
 *
 * @param <T> the fabric's task, what a completed READ is handed to
 */
public final class RdmaTransfers<T> {

    private final ByteBuf[] buffers;
    private final int[] lengths;
    private final Object[] tasks;
    private final int[] free;
    private int freeCount;

    public RdmaTransfers(int capacity) {
        buffers = new ByteBuf[capacity];
        lengths = new int[capacity];
        tasks = new Object[capacity];
        free = new int[capacity];
        for (int i = capacity - 1; i >= 0; i--) {
            free[freeCount++] = i;
        }
    }

    /** Takes a slot for {@code buf} (owned by the table until {@link #free}); -1 when all are in use. */
    public int take(ByteBuf buf, int length, T task) {
        if (freeCount == 0) {
            return -1;
        }
        int slot = free[--freeCount];
        buffers[slot] = buf;
        lengths[slot] = length;
        tasks[slot] = task;
        return slot;
    }

    /**
     * Posts one RDMA READ into {@code buf} or WRITE from it ({@code length} registered bytes at
     * {@code index}) as work request {@code kind | slot}; the table owns {@code buf} until
     * {@link #free}. On failure the buffer is released and nothing is held.
     *
     * @return null, or why it could not be posted (every slot in use, or the queue pair refused it)
     */
    public String post(RegisteredMemory memory, QueuePair qp, WorkRequest wr, long kind, WorkRequestOpcode opcode,
                       ByteBuf buf, int index, int length, long remoteAddress, int rkey, T task) {
        int slot = take(buf, length, task);
        if (slot < 0) {
            buf.release();
            return "more than " + buffers.length + " RDMA transfers in flight";
        }
        int rc = memory.postTransfer(qp, wr, kind | slot, opcode, buf, index, length, remoteAddress, rkey);
        if (rc != Errno.OK) {
            free(slot).release();
            return opcode + " refused by the queue pair (errno " + rc + ")";
        }
        return null;
    }

    /** The task a READ fetches for; null for a WRITE. */
    @SuppressWarnings("unchecked")
    public T task(int slot) {
        return (T) tasks[slot];
    }

    public int length(int slot) {
        return lengths[slot];
    }

    /** Slots in use. */
    public int inFlight() {
        return buffers.length - freeCount;
    }

    /** Frees the slot and hands its buffer to the caller. */
    public ByteBuf free(int slot) {
        ByteBuf b = buffers[slot];
        buffers[slot] = null;
        tasks[slot] = null;
        free[freeCount++] = slot;
        return b;
    }

    /** The connection is gone: every buffer still held is released. */
    public void releaseAll() {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                free(i).release();
            }
        }
    }
}
