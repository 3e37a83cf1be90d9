package org.jtarget.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads and checks {@code type: partition} backstores: a byte range of another store that backs a
 * LUN of its own.
 *
 * <pre>
 * - { name: part-a, type: partition, of: file0, offset: 0, size: 1GiB }
 * </pre>
 *
 * <p>Decisions: partitions do not nest ({@code of} names a memory, file or block store; a
 * partition of a partition adds nothing a larger offset does not give). The parent may be listed
 * before or after its partitions. {@code block-size}, {@code thin}, {@code write-cache} and
 * {@code direct} are the parent's and refused on a partition, so one file never has two
 * contradicting settings. Partitions of one parent must not overlap (two LUs writing the same
 * blocks would each keep their own reservations and range locks for them), and may leave gaps.
 * Where the parent is a block device whose geometry is known only when it opens, alignment and
 * extent are checked again then (by {@code org.jtarget.backstore.partition}).
 */
final class PartitionReader {

    private static final Set<String> PARTITION_KEYS = ConfigNode.keys("name", "type", "of", "offset", "size");
    /** Settings a partition takes from its parent. */
    private static final List<String> INHERITED_KEYS = List.of("block-size", "thin", "write-cache", "direct",
            "path", "create");

    /** A partition read but not yet checked against its parent. */
    record Pending(ConfigNode node, int index, BackstoreConfig config) {
    }

    private PartitionReader() {
    }

    /**
     * One partition entry with its own keys only; the parent's settings are filled in by
     * {@link #resolve}.
     */
    static BackstoreConfig readOne(ConfigNode node, String name) throws ConfigException {
        for (String key : INHERITED_KEYS) {
            if (node.has(key)) {
                throw node.error(key, "not allowed on a partition: it is the parent store's (set it there)");
            }
        }
        node.requireOnlyKeys(PARTITION_KEYS);
        String of = node.requireString("of");
        long offset = BackstoreReader.bytes(node, "offset", true);
        if (offset < 0) {
            throw node.error("offset", "must be 0 or more, got " + offset);
        }
        long size = BackstoreReader.bytes(node, "size", true);
        if (size <= 0) {
            throw node.error("size", "must be positive, got " + size);
        }
        return new BackstoreConfig(name, BackstoreConfig.Type.PARTITION, null, size, false, 0, false, null, null,
                of, offset);
    }

    /**
     * Checks every partition against its parent and its siblings and replaces it in {@code stores}
     * by one carrying the parent's settings.
     */
    static void resolve(List<Pending> partitions, List<BackstoreConfig> stores) throws ConfigException {
        List<Pending> resolved = new ArrayList<>();
        for (Pending p : partitions) {
            BackstoreConfig parent = parent(p, stores);
            BackstoreConfig config = BackstoreConfig.partition(p.config().name(), parent, p.config().offsetBytes(),
                    p.config().sizeBytes());
            checkExtent(p.node(), config, parent);
            Pending done = new Pending(p.node(), p.index(), config);
            checkOverlap(done, resolved);
            resolved.add(done);
            stores.set(p.index(), config);
        }
    }

    private static BackstoreConfig parent(Pending p, List<BackstoreConfig> stores) throws ConfigException {
        String of = p.config().of();
        for (BackstoreConfig b : stores) {
            if (b.name().equals(of)) {
                if (b.isPartition()) {
                    throw p.node().error("of", "'" + of + "' is itself a partition; partitions do not nest"
                            + " (name its parent '" + b.of() + "' and add the offsets)");
                }
                return b;
            }
        }
        throw p.node().error("of", "unknown backstore '" + of + "'");
    }

    /**
     * Offset and size are whole blocks of the parent, and the extent lies inside it. A block device
     * parent without {@code block-size}/{@code size} is checked against 512-byte blocks here and
     * against the device when it opens.
     */
    private static void checkExtent(ConfigNode node, BackstoreConfig c, BackstoreConfig parent)
            throws ConfigException {
        int blockSize = parent.blockSize() == 0 ? BackstoreConfig.DEFAULT_BLOCK_SIZE : parent.blockSize();
        String problem = PartitionExtent.misalignment(c.offsetBytes(), c.sizeBytes(), blockSize, parent.name());
        if (problem != null) {
            throw node.error(c.offsetBytes() % blockSize != 0 ? "offset" : "size", problem);
        }
        if (parent.sizeBytes() > 0) {
            problem = PartitionExtent.outside(c.offsetBytes(), c.sizeBytes(), parent.sizeBytes(), parent.name());
            if (problem != null) {
                throw node.error(c.offsetBytes() >= parent.sizeBytes() ? "offset" : "size", problem);
            }
        }
    }

    private static void checkOverlap(Pending p, List<Pending> earlier) throws ConfigException {
        BackstoreConfig c = p.config();
        for (Pending e : earlier) {
            BackstoreConfig o = e.config();
            if (o.of().equals(c.of()) && c.offsetBytes() < o.offsetBytes() + o.sizeBytes()
                    && o.offsetBytes() < c.offsetBytes() + c.sizeBytes()) {
                throw p.node().error("offset", "partition '" + c.name() + "' " + PartitionExtent.describe(c.offsetBytes(),
                        c.sizeBytes()) + " overlaps partition '" + o.name() + "' " + PartitionExtent.describe(
                        o.offsetBytes(), o.sizeBytes()) + " of '" + c.of() + "'");
            }
        }
    }
}
