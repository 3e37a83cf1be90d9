package org.jtarget.daemon;

import org.jtarget.backstore.Backstores;
import org.jtarget.backstore.spi.Backstore;
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
 */
public final class BackstoreSet implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackstoreSet.class);

    private final Map<String, Backstore> stores;

    private BackstoreSet(Map<String, Backstore> stores) {
        this.stores = stores;
    }

    /** Opens every backstore of {@code config}; a failure names the config file and key. */
    public static BackstoreSet open(JtargetConfig config) throws ConfigException {
        Map<String, Backstore> opened = new LinkedHashMap<>();
        try {
            for (BackstoreConfig bc : config.backstores()) {
                Backstore store = Backstores.open(bc);
                opened.put(bc.name(), store);
                LOG.info("backstore {} opened: {} {}, {} blocks of {} bytes", bc.name(), bc.type().configName(),
                        ByteSize.format(store.info().sizeBytes()), store.info().blockCount(), store.info().blockSize());
            }
            return new BackstoreSet(opened);
        } catch (ConfigException e) {
            new BackstoreSet(opened).close();
            throw e.withSource(config.source().toString());
        }
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
