package org.jtarget.backstore.spi;

/**
 * A store could not be opened with the settings it was given: the message is the one-line problem,
 * {@link #setting()} says which setting it is about. Whoever took the settings from a user (the
 * daemon, from YAML) names them in the user's terms; the stores know no config format. Not an
 * {@link java.io.IOException}, so an opener's own {@code catch (IOException)} cannot swallow and
 * reword it.
 */
public final class StoreOpenException extends Exception {

    /** The open parameter a problem is about. */
    public enum Setting {
        /** The file or device path (missing, no permission, in use, not a file or device). */
        PATH,
        /** The capacity in bytes. */
        SIZE,
        /** The logical block size. */
        BLOCK_SIZE,
        /** Thin provisioning (hole punching or device zeroing unavailable). */
        THIN,
        /** O_DIRECT I/O. */
        DIRECT,
        /** Encryption at rest and its key. */
        ENCRYPT
    }

    private final Setting setting;

    public StoreOpenException(Setting setting, String problem) {
        this(setting, problem, null);
    }

    public StoreOpenException(Setting setting, String problem, Throwable cause) {
        super(problem, cause);
        this.setting = setting;
    }

    public Setting setting() {
        return setting;
    }
}
