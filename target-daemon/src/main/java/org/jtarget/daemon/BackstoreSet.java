package org.jtarget.daemon;

import org.jtarget.backstore.memory.MemoryBudget;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.JtargetConfig;
import org.jtarget.units.ByteSize;
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
 * those already opened are closed again. Stores are opened in two rounds, whole stores then
 * partitions (which borrow their parent, opened once and shared), and closed in reverse opening
 * order: every partition flushes and closes before the parent it lives in.
 *
 * <p>Memory stores share one {@link MemoryBudget} of {@code daemon.memory-limit}.
 */
public final class BackstoreSet implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackstoreSet.class);

    /** Opens one store; a partition gets its opened parent. A seam for tests. */
    @FunctionalInterface
    interface Opener {
        Backstore open(BackstoreConfig config, Backstore parent) throws ConfigException;
    }

    private final Map<String, Backstore> stores;
    private final List<Backstore> openingOrder;
    private final MemoryBudget memoryBudget;

    private BackstoreSet(Map<String, Backstore> stores, List<Backstore> openingOrder, MemoryBudget memoryBudget) {
        this.stores = stores;
        this.openingOrder = openingOrder;
        this.memoryBudget = memoryBudget;
    }

    /** Opens every backstore of {@code config}; a failure names the config file and key. */
    public static BackstoreSet open(JtargetConfig config) throws ConfigException {
        MemoryBudget budget = new MemoryBudget(config.daemon().memoryLimit());
        BackstoreSet set = open(config, (bc, parent) -> BackstoreOpeners.open(bc, parent, budget,
                config.daemon().stateDir()), budget);
        if (budget.limit() != MemoryBudget.UNLIMITED) {
            LOG.info("memory backstores may hold {} together (daemon.memory-limit)", ByteSize.format(budget.limit()));
        }
        return set;
    }

    static BackstoreSet open(JtargetConfig config, Opener opener, MemoryBudget budget) throws ConfigException {
        Map<String, Backstore> byName = new LinkedHashMap<>();
        List<Backstore> order = new ArrayList<>();
        try {
            for (boolean partitions : new boolean[] {false, true}) {
                for (BackstoreConfig bc : config.backstores()) {
                    if (bc.isPartition() == partitions) {
                        Backstore store = opener.open(bc, partitions ? byName.get(bc.of()) : null);
                        byName.put(bc.name(), store);
                        order.add(store);
                        logOpened(bc, store);
                    }
                }
            }
        } catch (ConfigException e) {
            new BackstoreSet(byName, order, budget).close();
            throw e.withSource(config.source().toString());
        }
        Map<String, Backstore> inConfigOrder = new LinkedHashMap<>();
        for (BackstoreConfig bc : config.backstores()) {
            inConfigOrder.put(bc.name(), byName.get(bc.name()));
        }
        return new BackstoreSet(inConfigOrder, order, budget);
    }

    private static void logOpened(BackstoreConfig bc, Backstore store) {
        if (bc.isPartition()) {
            LOG.info("backstore {} opened: partition of {} at {}, {} blocks of {} bytes", bc.name(), bc.of(),
                    ByteSize.format(bc.offsetBytes()), store.info().blockCount(), store.info().blockSize());
        } else {
            LOG.info("backstore {} opened: {} {}, {} blocks of {} bytes", bc.name(), bc.type().configName(),
                    ByteSize.format(store.info().sizeBytes()), store.info().blockCount(), store.info().blockSize());
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

    /** Flushes and closes every store, newest first (partitions before parents); logs failures and keeps going. */
    @Override
    public void close() {
        for (int i = openingOrder.size() - 1; i >= 0; i--) {
            Backstore store = openingOrder.get(i);
            try {
                store.close();
                LOG.debug("backstore {} closed", store.name());
            } catch (IOException | RuntimeException e) {
                LOG.error("backstore {}: close failed: {}", store.name(), e.toString());
            }
        }
    }
}
