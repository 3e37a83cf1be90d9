package org.jtarget.ha.link;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What each node tells the other first on a new link (the body of a {@link LinkHeader#HELLO}),
 * big-endian:
 *
 * <pre>
 * node name       u8 length | UTF-8
 * primary         u8 (1: this node serves the LUs, 0: it is the secondary)
 * generation      u64 counter | u8 length | UTF-8 name of the node that began it
 * staging         rkey u32 | base address u64 | slot size u32 | slot count u16
 * port groups     u8 count | u16 target port group id each
 * stores          u16 count | per store: u8 length | UTF-8 name | block size u32 | block count u64 | state u8
 *                 | flags u8 (bit 0: unmapped blocks read as zeros)
 * </pre>
 *
 * The staging slots are where the peer RDMA WRITEs the data of its WRITE messages (slot {@code i}
 * at {@code base + i * slotSize}). A store's state says whether its data is that of the
 * generation ({@link #DATA_CONSISTENT}), is but with local changes ({@link #DATA_CHANGED}), or
 * must be copied whole from the peer ({@link #DATA_MISSING}: a memory store after a restart, a
 * store never synced).
 */
public record Hello(String node, boolean primary, long generation, String generationNode, int stagingRkey,
                    long stagingBase, int slotSize, int slotCount, List<Integer> portGroups, List<Store> stores) {

    public static final int DATA_MISSING = 0;
    public static final int DATA_CONSISTENT = 1;
    /**
     * Whole, but with regions changed on the sender that the other node may lack or hold
     * otherwise (changes in flight at a crash, or made alone): it may serve, but if it is to be
     * the secondary its copy is replaced whole.
     */
    public static final int DATA_CHANGED = 2;

    public Hello {
        portGroups = List.copyOf(portGroups);
        stores = List.copyOf(stores);
    }

    /**
     * One replicated store as the sender has it.
     *
     * @param unmapsToZeros the store deallocates on UNMAP and its deallocated blocks read as zeros
     *                      (a thin store): a resync may send it holes as UNMAPs
     */
    public record Store(String name, int blockSize, long blockCount, int state, boolean unmapsToZeros) {

        public Store(String name, int blockSize, long blockCount, int state) {
            this(name, blockSize, blockCount, state, false);
        }
    }

    private static final int STORE_UNMAPS_TO_ZEROS = 1;

    /** The body's length when encoded. */
    public int encodedLength() {
        int n = 1 + utf8(node).length + 1 + 8 + 1 + utf8(generationNode).length + 4 + 8 + 4 + 2 + 1
                + 2 * portGroups.size() + 2;
        for (Store s : stores) {
            n += 1 + utf8(s.name).length + 4 + 8 + 1 + 1;
        }
        return n;
    }

    public void encode(ByteBuf b) {
        writeString(b, node);
        b.writeByte(primary ? 1 : 0);
        b.writeLong(generation);
        writeString(b, generationNode);
        b.writeInt(stagingRkey).writeLong(stagingBase).writeInt(slotSize).writeShort(slotCount);
        b.writeByte(portGroups.size());
        for (int g : portGroups) {
            b.writeShort(g);
        }
        b.writeShort(stores.size());
        for (Store s : stores) {
            writeString(b, s.name);
            b.writeInt(s.blockSize).writeLong(s.blockCount).writeByte(s.state)
                    .writeByte(s.unmapsToZeros ? STORE_UNMAPS_TO_ZEROS : 0);
        }
    }

    /** Decodes the body at the reader index (the header read already); never throws on bad bytes. */
    public static Decoded<Hello> decode(ByteBuf b) {
        try {
            String node = readString(b);
            boolean primary = b.readUnsignedByte() == 1;
            long generation = b.readLong();
            String generationNode = readString(b);
            int rkey = b.readInt();
            long base = b.readLong();
            int slotSize = b.readInt();
            int slotCount = b.readUnsignedShort();
            List<Integer> groups = new ArrayList<>();
            for (int n = b.readUnsignedByte(); n > 0; n--) {
                groups.add(b.readUnsignedShort());
            }
            List<Store> stores = new ArrayList<>();
            for (int n = b.readUnsignedShort(); n > 0; n--) {
                stores.add(new Store(readString(b), b.readInt(), b.readLong(), b.readUnsignedByte(),
                        (b.readUnsignedByte() & STORE_UNMAPS_TO_ZEROS) != 0));
            }
            if (slotSize <= 0 || slotCount == 0) {
                return Decoded.malformed("HELLO with no staging slots");
            }
            return Decoded.ok(new Hello(node, primary, generation, generationNode, rkey, base, slotSize, slotCount,
                    groups, stores));
        } catch (IndexOutOfBoundsException e) {
            return Decoded.malformed("HELLO shorter than its contents");
        }
    }

    /** The store of that name, or null. */
    public Store store(String name) {
        for (Store s : stores) {
            if (s.name.equals(name)) {
                return s;
            }
        }
        return null;
    }

    static void writeString(ByteBuf b, String s) {
        byte[] bytes = utf8(s);
        if (bytes.length > 255) {
            throw new IllegalArgumentException("name longer than 255 bytes: " + s);
        }
        b.writeByte(bytes.length).writeBytes(bytes);
    }

    static String readString(ByteBuf b) {
        int n = b.readUnsignedByte();
        byte[] bytes = new byte[n];
        b.readBytes(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
