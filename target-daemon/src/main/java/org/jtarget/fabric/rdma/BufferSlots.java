package org.jtarget.fabric.rdma;

import io.netty.buffer.ByteBuf;

/**
 * A fixed set of equal registered buffers of one connection (its receive ring, its send buffers),
 * carved from the arena once and kept until the connection ends, with a stack of the free ones.
 * One thread: the connection's loop.
 */
public final class BufferSlots {

    private final ByteBuf[] buffers;
    private final int[] free;
    private int freeCount;

    public BufferSlots(int count) {
        buffers = new ByteBuf[count];
        free = new int[count];
    }

    /**
     * Carves every buffer ({@code size} bytes) from {@code memory}, all free.
     *
     * @return null, or why not (the arena is exhausted), naming {@code what}
     */
    public String carve(RegisteredMemory memory, int size, String what) {
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = memory.buffer(size);
            if (buffers[i] == null) {
                return "no registered memory for the " + what;
            }
            free[freeCount++] = i;
        }
        return null;
    }

    public ByteBuf get(int slot) {
        return buffers[slot];
    }

    public int count() {
        return buffers.length;
    }

    /** Takes a free slot, its buffer cleared; -1 when none is free. */
    public int take() {
        if (freeCount == 0) {
            return -1;
        }
        int slot = free[--freeCount];
        buffers[slot].clear();
        return slot;
    }

    /** The slot's buffer is free again. */
    public void give(int slot) {
        free[freeCount++] = slot;
    }

    public int freeCount() {
        return freeCount;
    }

    public boolean allFree() {
        return freeCount == buffers.length;
    }

    /** The connection is gone: every buffer goes back to the arena. */
    public void releaseAll() {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                buffers[i].release();
                buffers[i] = null;
            }
        }
        freeCount = 0;
    }
}
