package org.jtarget.backstore.crypt;

import io.netty.buffer.PooledByteBufAllocator;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.BackstoreConfig.Encrypt;
import org.jtarget.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Opens a file or block store with its {@code encrypt} setting, applying the key rule: a key is
 * never invented for data that already exists, because the data would silently turn to noise.
 * <ul>
 * <li>{@code encrypt: true}: the key file must exist, unless the store is a file that does not
 *     exist yet (it is created at this start with {@code create: true}): then a new key is written
 *     before the file is created. A missing key for an existing file or device is a config error
 *     naming {@code backstores[NAME].encrypt}.</li>
 * <li>{@code encrypt: new}: initialises encryption on an existing file or device (whose content
 *     becomes unreadable); refused while a key file exists, so it runs once and the config then
 *     says {@code true}.</li>
 * <li>{@code encrypt: false} with a key file present is a config error too: the store holds
 *     ciphertext that initiators would read as data.</li>
 * </ul>
 */
public final class EncryptingBackstores {

    private static final Logger LOG = LoggerFactory.getLogger(EncryptingBackstores.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Opens the inner, plaintext-agnostic store. */
    @FunctionalInterface
    public interface StoreOpener {
        Backstore open() throws ConfigException;
    }

    private EncryptingBackstores() {
    }

    /**
     * Opens the store {@code opener} opens, encrypted if {@code config} says so; the caller owns
     * the result.
     *
     * @param stateDir the daemon's state directory ({@code daemon.state-dir}) holding {@code keys/};
     *                 null: none (only unencrypted stores open)
     */
    public static Backstore open(BackstoreConfig config, Path stateDir, StoreOpener opener) throws ConfigException {
        if (stateDir == null) {
            if (config.encrypt() != Encrypt.OFF) {
                throw error(config, "needs daemon.state-dir to keep the key");
            }
            return opener.open();
        }
        Path keyFile = KeyFile.of(stateDir, config.name());
        boolean haveKey = Files.exists(keyFile);
        XtsKey key = switch (config.encrypt()) {
            case OFF -> {
                if (haveKey) {
                    throw error(config, "the store has a key file " + keyFile + ": it holds encrypted data; set "
                            + "'encrypt: true', or delete the key file to use the store unencrypted (its data is lost)");
                }
                yield null;
            }
            case ON -> haveKey ? load(config, keyFile) : keyForNewFile(config, keyFile);
            case NEW -> {
                if (haveKey) {
                    throw error(config, "'new' creates a key, but " + keyFile + " exists: set 'encrypt: true' to "
                            + "use it (or delete it, losing the data, to start over)");
                }
                LOG.warn("backstore {}: encryption initialised: its current content is unreadable from now on; "
                        + "set 'encrypt: true' in the config before the next start", config.name());
                yield create(config, keyFile);
            }
        };
        Backstore inner = opener.open();
        if (key == null) {
            return inner;
        }
        try {
            return new EncryptingBackstore(inner, keyFile, key, PooledByteBufAllocator.DEFAULT, RANDOM);
        } catch (IllegalArgumentException e) {
            closeQuietly(inner);
            throw error(config, e.getMessage());
        }
    }

    /** {@code encrypt: true} without a key file: allowed only for a file created at this start. */
    private static XtsKey keyForNewFile(BackstoreConfig config, Path keyFile) throws ConfigException {
        boolean newFile = config.type() == BackstoreConfig.Type.FILE && config.create() && !Files.exists(config.path());
        if (!newFile) {
            throw error(config, "no key file " + keyFile + " for existing " + config.path() + ": its data cannot be "
                    + "decrypted; restore the key file, or set 'encrypt: new' once to start over (the data is lost)");
        }
        LOG.info("backstore {}: new encryption key for the new file {}", config.name(), config.path());
        return create(config, keyFile);
    }

    private static XtsKey create(BackstoreConfig config, Path keyFile) throws ConfigException {
        XtsKey key = XtsKey.generate(RANDOM);
        try {
            KeyFile.write(keyFile, key);
        } catch (IOException e) {
            throw new ConfigException(null, key(config), "cannot write key file " + keyFile + ": " + e, e);
        }
        return key;
    }

    private static XtsKey load(BackstoreConfig config, Path keyFile) throws ConfigException {
        try {
            return KeyFile.load(keyFile);
        } catch (IOException e) {
            throw new ConfigException(null, key(config), "cannot read key file " + keyFile + ": " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(Backstore store) {
        try {
            store.close();
        } catch (IOException e) {
            LOG.warn("backstore {}: close failed: {}", store.name(), e.toString());
        }
    }

    private static String key(BackstoreConfig config) {
        return "backstores[" + config.name() + "].encrypt";
    }

    private static ConfigException error(BackstoreConfig config, String problem) {
        return new ConfigException(null, key(config), problem);
    }
}
