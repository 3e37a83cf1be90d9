package org.jtarget.fabric.srp;

import java.util.Arrays;

/**
 * The initiator's memory for one direction of one command, as its SRP_CMD described it (SRP r16a
 * 6.8.2-6.8.3): a list of memory descriptors (virtual address, handle = the rkey, length), one for
 * a direct descriptor, several for an indirect one, walked in order as one stream of bytes.
 * Reused from command to command: the arrays grow to the longest list seen and are kept, so
 * steady-state I/O allocates nothing.
 */
final class RemoteBuffers {

    private long[] addresses = new long[1];
    private int[] keys = new int[1];
    private int[] lengths = new int[1];
    private int count;
    private long total;

    void clear() {
        count = 0;
        total = 0;
    }

    void add(long address, int key, int length) {
        if (count == addresses.length) {
            int n = count * 2;
            addresses = Arrays.copyOf(addresses, n);
            keys = Arrays.copyOf(keys, n);
            lengths = Arrays.copyOf(lengths, n);
        }
        addresses[count] = address;
        keys[count] = key;
        lengths[count] = length;
        count++;
        total += Integer.toUnsignedLong(length);
    }

    int count() {
        return count;
    }

    /** Bytes of every descriptor together. */
    long total() {
        return total;
    }

    long address(int i) {
        return addresses[i];
    }

    int key(int i) {
        return keys[i];
    }

    /** Bytes of descriptor {@code i} (unsigned 32-bit on the wire; Linux never sends 2 GiB or more). */
    long length(int i) {
        return Integer.toUnsignedLong(lengths[i]);
    }

    /**
     * A position in the stream (descriptor, offset in it), moved forward by {@link #advance}:
     * RDMA READs and WRITEs walk the list chunk by chunk and never cross a descriptor.
     */
    static final class Cursor {
        int descriptor;
        long offset;

        void reset() {
            descriptor = 0;
            offset = 0;
        }

        /** Bytes left in the current descriptor, 0 past the last. */
        long leftInDescriptor(RemoteBuffers b) {
            return descriptor < b.count ? b.length(descriptor) - offset : 0;
        }

        long address(RemoteBuffers b) {
            return b.address(descriptor) + offset;
        }

        int key(RemoteBuffers b) {
            return b.key(descriptor);
        }

        /** Moves {@code n} bytes forward (at most {@link #leftInDescriptor}), to the next non-empty descriptor if this one is done. */
        void advance(RemoteBuffers b, long n) {
            offset += n;
            while (descriptor < b.count && offset >= b.length(descriptor)) {
                offset -= b.length(descriptor);
                descriptor++;
            }
        }
    }
}
