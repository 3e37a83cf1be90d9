package org.jtarget.daemon;

import org.jtarget.backstore.block.BlockBackstores;
import org.jtarget.backstore.block.BlockStoreSettings;
import org.jtarget.backstore.crypt.EncryptingBackstores;
import org.jtarget.backstore.file.FileBackstores;
import org.jtarget.backstore.file.FileStoreSettings;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.memory.MemoryBudget;
import org.jtarget.backstore.partition.PartitionBackstore;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.backstore.spi.StoreOpenException;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.PartitionExtent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Opens the store a {@link BackstoreConfig} describes: the YAML model turned into each store's own
 * settings (defaults resolved here), and each store's {@link StoreOpenException} turned into a
 * {@link ConfigException} naming the key ({@code backstores[NAME].path}), without a source file;
 * the caller adds it with {@link ConfigException#withSource}. The stores know no config.
 */
public final class BackstoreOpeners {

    private BackstoreOpeners() {
    }

    /**
     * Opens a memory, file or block store; the caller owns it and must close it. Partitions need
     * their parent: {@link #open(BackstoreConfig, Backstore)}.
     */
    public static Backstore open(BackstoreConfig config) throws ConfigException {
        return open(config, null);
    }

    /** As {@link #open(BackstoreConfig, Backstore, MemoryBudget)} with no memory limit. */
    public static Backstore open(BackstoreConfig config, Backstore parent) throws ConfigException {
        return open(config, parent, new MemoryBudget(MemoryBudget.UNLIMITED));
    }

    /** As {@link #open(BackstoreConfig, Backstore, MemoryBudget, Path)} without a state directory (no encryption). */
    public static Backstore open(BackstoreConfig config, Backstore parent, MemoryBudget budget)
            throws ConfigException {
        return open(config, parent, budget, null);
    }

    /**
     * Opens the store; the caller owns it and must close it.
     *
     * @param parent for a partition, its opened parent store (borrowed: close the partition first,
     *               then the parent); ignored otherwise
     * @param budget the memory a memory store draws on ({@code daemon.memory-limit}, shared by
     *               all memory stores of a daemon); ignored otherwise
     * @param stateDir {@code daemon.state-dir}, where encrypted file and block stores keep their key
     *               ({@code encrypt}, see {@link EncryptingBackstores}); null: no encryption
     */
    public static Backstore open(BackstoreConfig config, Backstore parent, MemoryBudget budget, Path stateDir)
            throws ConfigException {
        return switch (config.type()) {
            case MEMORY -> openMemory(config, budget);
            case FILE -> openEncryptable(config, stateDir, () -> FileBackstores.open(fileSettings(config)));
            case BLOCK -> openEncryptable(config, stateDir, () -> BlockBackstores.open(blockSettings(config)));
            case PARTITION -> {
                if (parent == null) {
                    throw new IllegalArgumentException("partition " + config.name() + " needs its parent " + config.of());
                }
                yield openPartition(config, parent);
            }
        };
    }

    /** A memory store drawing on {@code budget}; failing that is a config error naming the key. */
    private static Backstore openMemory(BackstoreConfig config, MemoryBudget budget) throws ConfigException {
        try {
            return new MemoryBackstore(config.name(), config.blockSize(), config.blockCount(), config.thin(),
                    Boolean.TRUE.equals(config.writeCache()), MemoryBackstore.DEFAULT_CHUNK_SIZE, budget);
        } catch (StoreException e) {
            // no cause: the budget refused a fully provisioned store; a cause: the system had no memory
            String key = e.getCause() == null ? "daemon.memory-limit" : "backstores[" + config.name() + "].size";
            throw new ConfigException(null, key, "cannot allocate " + config.sizeBytes() + " bytes for memory backstore "
                    + config.name() + ": " + e.getMessage(), e);
        }
    }

    /** File default: through the page cache with the write cache on. */
    static FileStoreSettings fileSettings(BackstoreConfig config) {
        return new FileStoreSettings(config.name(), config.path(), config.sizeBytes(), config.create(),
                config.blockSize(), config.thin(), !Boolean.FALSE.equals(config.writeCache()),
                Boolean.TRUE.equals(config.direct()));
    }

    /** Block default: O_DIRECT with the write cache on; size and block size 0 take the device's. */
    static BlockStoreSettings blockSettings(BackstoreConfig config) {
        return new BlockStoreSettings(config.name(), config.path(), config.sizeBytes(), config.blockSize(),
                config.thin(), !Boolean.FALSE.equals(config.writeCache()), !Boolean.FALSE.equals(config.direct()));
    }

    /** A file or block store with its {@code encrypt} setting; a new key only for a file created at this start. */
    private static Backstore openEncryptable(BackstoreConfig config, Path stateDir,
                                             EncryptingBackstores.StoreOpener opener) throws ConfigException {
        if (stateDir == null && config.encrypt() != BackstoreConfig.Encrypt.OFF) {
            throw new ConfigException(null, key(config, "encrypt"), "needs daemon.state-dir to keep the key");
        }
        boolean newFile = config.type() == BackstoreConfig.Type.FILE && config.create() && !Files.exists(config.path());
        var target = new EncryptingBackstores.Target(config.name(), config.path(), newFile);
        try {
            return EncryptingBackstores.open(target, encryptionMode(config.encrypt()), stateDir, opener);
        } catch (StoreOpenException e) {
            throw new ConfigException(null, key(config, settingKey(e.setting())), e.getMessage(), e.getCause());
        }
    }

    private static EncryptingBackstores.Mode encryptionMode(BackstoreConfig.Encrypt encrypt) {
        return switch (encrypt) {
            case OFF -> EncryptingBackstores.Mode.OFF;
            case ON -> EncryptingBackstores.Mode.ON;
            case NEW -> EncryptingBackstores.Mode.NEW;
        };
    }

    /**
     * A partition over its opened parent. The config loader checked the extent against the parent's
     * configured geometry; this checks it again against the opened parent, whose geometry may only
     * be known now (a block device without {@code size} or {@code block-size}).
     */
    static PartitionBackstore openPartition(BackstoreConfig config, Backstore parent) throws ConfigException {
        if (!config.isPartition() || !parent.name().equals(config.of())) {
            throw new IllegalArgumentException(config.name() + " is not a partition of " + parent.name());
        }
        BackstoreInfo p = parent.info();
        String problem = PartitionExtent.misalignment(config.offsetBytes(), config.sizeBytes(), p.blockSize(),
                parent.name());
        if (problem != null) {
            throw new ConfigException(null, key(config, config.offsetBytes() % p.blockSize() != 0 ? "offset" : "size"),
                    problem);
        }
        problem = PartitionExtent.outside(config.offsetBytes(), config.sizeBytes(), p.sizeBytes(), parent.name());
        if (problem != null) {
            throw new ConfigException(null, key(config, config.offsetBytes() >= p.sizeBytes() ? "offset" : "size"),
                    problem);
        }
        return new PartitionBackstore(config.name(), parent, config.offsetBytes() / p.blockSize(),
                config.sizeBytes() / p.blockSize());
    }

    /** The YAML key of a store setting. */
    static String settingKey(StoreOpenException.Setting setting) {
        return switch (setting) {
            case PATH -> "path";
            case SIZE -> "size";
            case BLOCK_SIZE -> "block-size";
            case THIN -> "thin";
            case DIRECT -> "direct";
            case ENCRYPT -> "encrypt";
        };
    }

    private static String key(BackstoreConfig config, String setting) {
        return "backstores[" + config.name() + "]." + setting;
    }
}
