package org.jtarget.backstore.partition;

import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.PartitionExtent;

/**
 * Opens a {@link PartitionBackstore} over its already opened parent. The config loader checked
 * the extent against the parent's configured geometry; this checks it again against the opened
 * parent, whose geometry may only be known now (a block device without {@code size} or
 * {@code block-size}).
 */
public final class PartitionBackstores {

    private PartitionBackstores() {
    }

    /**
     * @param config a {@code type: partition} config
     * @param parent the opened store {@code config.of()} names (borrowed: the caller closes it after the partition)
     * @throws ConfigException naming {@code backstores[name].offset} or {@code .size}, without a source file
     */
    public static PartitionBackstore open(BackstoreConfig config, Backstore parent) throws ConfigException {
        if (!config.isPartition() || !parent.name().equals(config.of())) {
            throw new IllegalArgumentException(config.name() + " is not a partition of " + parent.name());
        }
        BackstoreInfo p = parent.info();
        String problem = PartitionExtent.misalignment(config.offsetBytes(), config.sizeBytes(), p.blockSize(),
                parent.name());
        if (problem != null) {
            throw error(config, config.offsetBytes() % p.blockSize() != 0 ? "offset" : "size", problem);
        }
        problem = PartitionExtent.outside(config.offsetBytes(), config.sizeBytes(), p.sizeBytes(), parent.name());
        if (problem != null) {
            throw error(config, config.offsetBytes() >= p.sizeBytes() ? "offset" : "size", problem);
        }
        return new PartitionBackstore(config.name(), parent, config.offsetBytes() / p.blockSize(),
                config.sizeBytes() / p.blockSize());
    }

    private static ConfigException error(BackstoreConfig config, String key, String problem) {
        return new ConfigException(null, "backstores[" + config.name() + "]." + key, problem);
    }
}
