package org.jtarget.daemon;

import org.jtarget.backstore.Backstores;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.memory.MemoryBudget;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ByteSize;
import org.jtarget.config.ConfigException;
import org.jtarget.config.JtargetConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The open backstores of a configuration, by name. Opening is all or nothing: if one store fails,
 * those already opened are closed again. Closing flushes each store (in reverse order).
 *
 * <p>Memory stores share one {@link MemoryBudget} of {@code daemon.memory-limit}, so they are
 * opened here rather than through {@link Backstores#open}, which knows no budget.
 */
public final class BackstoreSet implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackstoreSet.class);

    private final Map<String, Backstore> stores;
    private final MemoryBudget memoryBudget;

    private BackstoreSet(Map<String, Backstore> stores, MemoryBudget memoryBudget) {
        this.stores = stores;
        this.memoryBudget = memoryBudget;
    }

    /** Opens every backstore of {@code config}; a failure names the config file and key. */
    public static BackstoreSet open(JtargetConfig config) throws ConfigException {
        Map<String, Backstore> opened = new LinkedHashMap<>();
        MemoryBudget budget = new MemoryBudget(config.daemon().memoryLimit());
        try {
            for (BackstoreConfig bc : config.backstores()) {
                Backstore store = bc.type() == BackstoreConfig.Type.MEMORY ? openMemory(bc, budget) : Backstores.open(bc);
                opened.put(bc.name(), store);
                LOG.info("backstore {} opened: {} {}, {} blocks of {} bytes", bc.name(), bc.type().configName(),
                        ByteSize.format(store.info().sizeBytes()), store.info().blockCount(), store.info().blockSize());
            }
            if (budget.limit() != MemoryBudget.UNLIMITED) {
                LOG.info("memory backstores may hold {} together (daemon.memory-limit)", ByteSize.format(budget.limit()));
            }
            return new BackstoreSet(opened, budget);
        } catch (ConfigException e) {
            new BackstoreSet(opened, budget).close();
            throw e.withSource(config.source().toString());
        }
    }

    /** A memory store drawing on the daemon's budget; failing that is a config error naming the key. */
    static MemoryBackstore openMemory(BackstoreConfig bc, MemoryBudget budget) throws ConfigException {
        try {
            return new MemoryBackstore(bc.name(), bc.blockSize(), bc.blockCount(), bc.thin(),
                    Boolean.TRUE.equals(bc.writeCache()), MemoryBackstore.DEFAULT_CHUNK_SIZE, budget);
        } catch (StoreException e) {
            String key = e.getCause() == null ? "daemon.memory-limit" : "backstores[" + bc.name() + "].size";
            throw new ConfigException(null, key, "cannot allocate " + bc.sizeBytes() + " bytes for memory backstore "
                    + bc.name() + ": " + e.getMessage(), e);
        }
    }

    /** The memory all memory stores of this set share (daemon.memory-limit). */
    public MemoryBudget memoryBudget() {
        return memoryBudget;
    }

    /** The store with this config name, or null. */
    public Backstore get(String name) {
        return stores.get(name);
    }

    /** All stores in config order. */
    public Map<String, Backstore> all() {
        return Collections.unmodifiableMap(stores);
    }

    /** Flushes and closes every store, newest first; logs failures and keeps going. */
    @Override
    public void close() {
        List<Backstore> reverse = new ArrayList<>(stores.values());
        Collections.reverse(reverse);
        for (Backstore store : reverse) {
            try {
                store.close();
                LOG.debug("backstore {} closed", store.name());
            } catch (IOException | RuntimeException e) {
                LOG.error("backstore {}: close failed: {}", store.name(), e.toString());
            }
        }
    }
}
