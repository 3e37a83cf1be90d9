package org.jtarget.rdma;

import java.lang.foreign.MemorySegment;

/**
 * The keys of one device: an array indexed by the key's upper bits, so resolving a key on the data
 * path is an array read and a compare (no map, no boxing). A key is {@code index << 8 | generation
 * << 1 | remote}: the generation makes a stale key of a reused slot fail, and lkey and rkey differ.
 */
final class MemoryRegionTable {

    private volatile MemoryRegion[] slots = new MemoryRegion[64];
    private int[] generations = new int[64];

    synchronized MemoryRegion register(ProtectionDomain pd, MemorySegment segment, int access) {
        int lkey = newKey();
        return store(new MemoryRegion(pd, segment, access, lkey, lkey | 1));
    }

    /** A handler-backed region: only its rkey resolves (its lkey is 0, which never does). */
    synchronized MemoryRegion register(ProtectionDomain pd, RemoteAccessHandler handler, long size, int access) {
        int lkey = newKey();
        return store(new MemoryRegion(pd, handler, size, access, lkey | 1));
    }

    private MemoryRegion store(MemoryRegion mr) {
        MemoryRegion[] copy = slots.clone();
        copy[mr.rkey() >>> 8] = mr;
        slots = copy;
        return mr;
    }

    private int newKey() {
        int index = 1;
        while (index < slots.length && slots[index] != null) {
            index++;
        }
        if (index == slots.length) {
            MemoryRegion[] grown = new MemoryRegion[slots.length * 2];
            System.arraycopy(slots, 0, grown, 0, slots.length);
            int[] gens = new int[slots.length * 2];
            System.arraycopy(generations, 0, gens, 0, slots.length);
            slots = grown;
            generations = gens;
        }
        int gen = (generations[index] = (generations[index] + 1) & 0x7f);
        return index << 8 | gen << 1;
    }

    synchronized void remove(MemoryRegion mr) {
        MemoryRegion[] copy = slots.clone();
        copy[mr.rkey() >>> 8] = null;
        slots = copy;
    }

    /** The region whose lkey ({@code remote} false) or rkey is {@code key}, or null. */
    MemoryRegion lookup(int key, boolean remote) {
        MemoryRegion[] s = slots;
        int index = key >>> 8;
        if (index <= 0 || index >= s.length) {
            return null;
        }
        MemoryRegion mr = s[index];
        if (mr == null || (remote ? mr.rkey() : mr.lkey()) != key) {
            return null;
        }
        return mr;
    }
}
