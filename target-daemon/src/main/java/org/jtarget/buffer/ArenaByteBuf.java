package org.jtarget.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;

import java.nio.ByteBuffer;

/**
 * One slot of a {@link PinnedArena} as a reference-counted Netty buffer. Each slot has exactly one
 * of these, made when the slot is first carved and reused for every later allocation of it, so a
 * steady state allocates nothing. When the count drops to zero ({@link #deallocate}) the slot goes
 * back to its {@link ArenaAllocator}'s free list; Netty's reference count guarantees that happens
 * once per allocation (a second release throws {@code IllegalReferenceCountException}).
 *
 * <p>The capacity is the size asked for; the buffer may grow in place up to its slot
 * ({@link #maxCapacity()}), never beyond (it cannot move out of the arena).
 */
final class ArenaByteBuf extends UnpooledDirectByteBuf {

    private final ArenaAllocator owner;
    private final long address;
    /** The slot's first page, counted from the arena's start: its name in the free lists. */
    final int page;
    /** The slot's size class (its size is {@code ArenaAllocator.MIN_SLOT << sizeClass}). */
    final int sizeClass;
    private int length;
    /** False while Netty's constructor runs (it asks for the capacity before our fields are set). */
    private final boolean constructed;

    ArenaByteBuf(ArenaAllocator owner, ByteBuffer slot, long address, int page, int sizeClass) {
        super(owner, slot, slot.capacity());
        this.owner = owner;
        this.address = address;
        this.page = page;
        this.sizeClass = sizeClass;
        this.length = slot.capacity();
        this.constructed = true;
    }

    /** Makes a released (or new) slot a fresh buffer of {@code capacity} bytes with a count of 1. */
    ArenaByteBuf reuse(int capacity) {
        length = capacity;
        resetRefCnt();
        clear();
        markReaderIndex();
        markWriterIndex();
        return this;
    }

    /** Bytes of the slot (the size class's size). */
    int slotBytes() {
        return maxCapacity();
    }

    @Override
    public int capacity() {
        return constructed ? length : super.capacity();
    }

    /** Grows or shrinks within the slot; no copy, the address stays. */
    @Override
    public ByteBuf capacity(int newCapacity) {
        checkNewCapacity(newCapacity);
        length = newCapacity;
        trimIndicesToCapacity(newCapacity);
        return this;
    }

    @Override
    public boolean hasMemoryAddress() {
        return true;
    }

    @Override
    public long memoryAddress() {
        ensureAccessible();
        return address;
    }

    @Override
    protected void deallocate() {
        owner.free(this);
    }
}
