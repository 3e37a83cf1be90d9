package org.jtarget.backstore.crypt;

import io.netty.buffer.PooledByteBufAllocator;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.StoreOpenException;
import org.jtarget.backstore.spi.StoreOpenException.Setting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Opens a file or block store with its encryption {@link Mode}, applying the key rule: a key is
 * never invented for data that already exists, because the data would silently turn to noise.
 * <ul>
 * <li>{@link Mode#ON} ({@code encrypt: true}): the key file must exist, unless the store's data is
 *     new (a file created at this start): then a new key is written before the file is created. A
 *     missing key for an existing file or device is refused.</li>
 * <li>{@link Mode#NEW} ({@code encrypt: new}): initialises encryption on an existing file or device
 *     (whose content becomes unreadable); refused while a key file exists, so it runs once and the
 *     config then says {@code true}.</li>
 * <li>{@link Mode#OFF} with a key file present is refused too: the store holds ciphertext that
 *     initiators would read as data.</li>
 * </ul>
 * Refusals are {@link StoreOpenException}s about {@link Setting#ENCRYPT}; their texts tell the fix
 * in the config's words, as an operator reads them there.
 */
public final class EncryptingBackstores {

    private static final Logger LOG = LoggerFactory.getLogger(EncryptingBackstores.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Opens the inner, plaintext-agnostic store. */
    @FunctionalInterface
    public interface StoreOpener {
        Backstore open() throws StoreOpenException;
    }

    /** Encryption at rest of one store: every block XTS-AES-256 ciphertext, the key in {@code keys/<name>.key}. */
    public enum Mode {
        /** Plaintext; a key file for the store is refused (its data is ciphertext). */
        OFF,
        /** Encrypted with the store's key file (made now only for new data). */
        ON,
        /** Make the key for this existing store now, once: its current content becomes unreadable. */
        NEW
    }

    /**
     * Where a store's data is and whether it comes into being at this open (a file created now):
     * only then may {@link Mode#ON} make a key.
     *
     * @param name    the store's name (its key file is {@code keys/<name>.key})
     * @param data    the file or device, for messages
     * @param newData true if the data does not exist yet and the opener creates it
     */
    public record Target(String name, Path data, boolean newData) {
    }

    private EncryptingBackstores() {
    }

    /** Where the key of store {@code name} lives under {@code stateDir} (whether or not it exists). */
    public static Path keyFile(Path stateDir, String name) {
        return KeyFile.of(stateDir, name);
    }

    /**
     * Opens the store {@code opener} opens, encrypted if {@code mode} says so; the caller owns the
     * result.
     *
     * @param stateDir the daemon's state directory holding {@code keys/}; null: none (only
     *                 {@link Mode#OFF} then, and no key file check)
     * @throws IllegalArgumentException if {@code mode} encrypts and there is no state directory
     */
    public static Backstore open(Target target, Mode mode, Path stateDir, StoreOpener opener)
            throws StoreOpenException {
        if (stateDir == null) {
            if (mode != Mode.OFF) {
                throw new IllegalArgumentException("store " + target.name() + ": encryption needs a state directory");
            }
            return opener.open();
        }
        Path keyFile = KeyFile.of(stateDir, target.name());
        boolean haveKey = Files.exists(keyFile);
        XtsKey key = switch (mode) {
            case OFF -> {
                if (haveKey) {
                    throw error("the store has a key file " + keyFile + ": it holds encrypted data; set "
                            + "'encrypt: true', or delete the key file to use the store unencrypted (its data is lost)");
                }
                yield null;
            }
            case ON -> haveKey ? load(keyFile) : keyForNewFile(target, keyFile);
            case NEW -> {
                if (haveKey) {
                    throw error("'new' creates a key, but " + keyFile + " exists: set 'encrypt: true' to "
                            + "use it (or delete it, losing the data, to start over)");
                }
                LOG.warn("backstore {}: encryption initialised: its current content is unreadable from now on; "
                        + "set 'encrypt: true' in the config before the next start", target.name());
                yield create(keyFile);
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
            throw error(e.getMessage());
        }
    }

    /** {@code encrypt: true} without a key file: allowed only for a file created at this start. */
    private static XtsKey keyForNewFile(Target target, Path keyFile) throws StoreOpenException {
        if (!target.newData()) {
            throw error("no key file " + keyFile + " for existing " + target.data() + ": its data cannot be "
                    + "decrypted; restore the key file, or set 'encrypt: new' once to start over (the data is lost)");
        }
        LOG.info("backstore {}: new encryption key for the new file {}", target.name(), target.data());
        return create(keyFile);
    }

    private static XtsKey create(Path keyFile) throws StoreOpenException {
        XtsKey key = XtsKey.generate(RANDOM);
        try {
            KeyFile.write(keyFile, key);
        } catch (IOException e) {
            throw new StoreOpenException(Setting.ENCRYPT, "cannot write key file " + keyFile + ": " + e, e);
        }
        return key;
    }

    private static XtsKey load(Path keyFile) throws StoreOpenException {
        try {
            return KeyFile.load(keyFile);
        } catch (IOException e) {
            throw new StoreOpenException(Setting.ENCRYPT, "cannot read key file " + keyFile + ": " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(Backstore store) {
        try {
            store.close();
        } catch (IOException e) {
            LOG.warn("backstore {}: close failed: {}", store.name(), e.toString());
        }
    }

    private static StoreOpenException error(String problem) {
        return new StoreOpenException(Setting.ENCRYPT, problem);
    }
}
