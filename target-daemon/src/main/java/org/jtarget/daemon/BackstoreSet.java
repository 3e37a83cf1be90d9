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
import java.util.Set;
import java.util.stream.Collectors;

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
    /** Opens the stores a config reload adds. */
    private final Opener opener;

    private BackstoreSet(Map<String, Backstore> stores, List<Backstore> openingOrder, MemoryBudget memoryBudget,
                         Opener opener) {
        this.stores = stores;
        this.openingOrder = openingOrder;
        this.memoryBudget = memoryBudget;
        this.opener = opener;
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
        BackstoreSet set = new BackstoreSet(new LinkedHashMap<>(), new ArrayList<>(), budget, opener);
        set.openMore(config, config.backstores().stream().map(BackstoreConfig::name).collect(Collectors.toSet()));
        return set;
    }

    /**
     * Opens the stores {@code names} of {@code config} (all at start; those a reload adds later),
     * all or nothing: if one fails, those opened by this call are closed again. Partitions get
     * their parent, opened earlier or by this call.
     */
    synchronized void openMore(JtargetConfig config, Set<String> names) throws ConfigException {
        List<Backstore> opened = new ArrayList<>();
        try {
            for (boolean partitions : new boolean[] {false, true}) {
                for (BackstoreConfig bc : config.backstores()) {
                    if (bc.isPartition() == partitions && names.contains(bc.name())) {
                        Backstore store = opener.open(bc, partitions ? stores.get(bc.of()) : null);
                        stores.put(bc.name(), store);
                        opened.add(store);
                        logOpened(bc, store);
                    }
                }
            }
        } catch (ConfigException e) {
            stores.values().removeAll(opened);
            closeNewestFirst(opened);
            throw e.withSource(config.source().toString());
        }
        openingOrder.addAll(opened);
        Map<String, Backstore> inConfigOrder = new LinkedHashMap<>();
        for (BackstoreConfig bc : config.backstores()) {
            if (stores.containsKey(bc.name())) {
                inConfigOrder.put(bc.name(), stores.get(bc.name()));
            }
        }
        inConfigOrder.putAll(stores); // stores the new config drops stay last until closed
        stores.clear();
        stores.putAll(inConfigOrder);
    }

    /**
     * Closes {@code removed} (stores a reload dropped, which no LU uses any more), newest first,
     * so a partition closes before its parent. By instance, not name: a later reload may already
     * have opened a new store of the same name. Stores already closed are skipped.
     */
    synchronized void close(List<Backstore> removed) {
        List<Backstore> closing = new ArrayList<>();
        for (Backstore store : openingOrder) {
            if (removed.stream().anyMatch(r -> r == store)) {
                closing.add(store);
            }
        }
        stores.values().removeIf(s -> closing.stream().anyMatch(c -> c == s));
        openingOrder.removeAll(closing);
        closeNewestFirst(closing);
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
    public synchronized Backstore get(String name) {
        return stores.get(name);
    }

    /** All stores (a copy). */
    public synchronized Map<String, Backstore> all() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(stores));
    }

    /** Flushes and closes every store, newest first (partitions before parents); logs failures and keeps going. */
    @Override
    public synchronized void close() {
        closeNewestFirst(new ArrayList<>(openingOrder));
        openingOrder.clear();
        stores.clear();
    }

    private static void closeNewestFirst(List<Backstore> order) {
        for (int i = order.size() - 1; i >= 0; i--) {
            Backstore store = order.get(i);
            try {
                store.close();
                LOG.debug("backstore {} closed", store.name());
            } catch (IOException | RuntimeException e) {
                LOG.error("backstore {}: close failed: {}", store.name(), e.toString());
            }
        }
    }
}
