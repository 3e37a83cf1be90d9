package org.jtarget.backstore;

import org.jtarget.backstore.block.BlockBackstores;
import org.jtarget.backstore.crypt.EncryptingBackstores;
import org.jtarget.backstore.file.FileBackstores;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.memory.MemoryBudget;
import org.jtarget.backstore.partition.PartitionBackstores;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;

import java.nio.file.Path;

/**
 * Opens the store a {@link BackstoreConfig} describes. Problems found while opening (missing file,
 * permissions, no memory) are {@link ConfigException}s naming the key, without a source file;
 * the caller adds it with {@link ConfigException#withSource}.
 */
public final class Backstores {

    private Backstores() {
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
            case FILE -> EncryptingBackstores.open(config, stateDir, () -> FileBackstores.open(config));
            case BLOCK -> EncryptingBackstores.open(config, stateDir, () -> BlockBackstores.open(config));
            case PARTITION -> {
                if (parent == null) {
                    throw new IllegalArgumentException("partition " + config.name() + " needs its parent " + config.of());
                }
                yield PartitionBackstores.open(config, parent);
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
}
