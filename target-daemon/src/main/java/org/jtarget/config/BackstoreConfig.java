package org.jtarget.config;

import java.nio.file.Path;

/**
 * A backstore ({@code backstores[]}).
 *
 * <pre>
 * - { name: ram0,  type: memory, size: 1GiB }
 * - { name: file0, type: file, path: data/file0.img, size: 4GiB, create: true }
 * - { name: disk0, type: block, path: /dev/loop3 }
 * - { name: part-a, type: partition, of: file0, offset: 0, size: 1GiB }
 * </pre>
 * Keys: {@code name}, {@code type} (memory|file|block), {@code size} (bytes or K/M/G/T, KiB..TiB, binary;
 * block: optional, must match the device), {@code path} (file and block, relative to the config
 * file's folder), {@code create} (file only:
 * create a sparse file of {@code size} if it is missing), {@code block-size} (512 or 4096),
 * {@code thin} (memory: allocate on first write and deallocate on unmap, default true),
 * {@code write-cache} (WCE: file and block default true, memory default false), {@code direct}
 * (file and block: O_DIRECT, bypass the page cache; block default true, file default false),
 * {@code encrypt} (file and block: {@code false}, {@code true} or {@code new}; see {@link Encrypt}).
 *
 * <p>A {@code partition} is a byte range of another (memory, file or block) store that backs a
 * LUN of its own: keys {@code name}, {@code type}, {@code of} (the parent store), {@code offset}
 * and {@code size} (bytes, multiples of the parent's block size). Block size, thin provisioning,
 * write cache and I/O mode are the parent's; partitions do not nest.
 *
 * @param name        unique config name LUNs refer to
 * @param type        the store kind
 * @param path        absolute file or device path, null for memory
 * @param sizeBytes   capacity in bytes, a multiple of blockSize (for an existing file without
 *                    {@code size}: the file's size)
 * @param create      create a missing file (sparse)
 * @param blockSize   logical block size, 512 or 4096; 0 for a block store without {@code block-size}
 *                    (the device's), as sizeBytes is 0 for one without {@code size}
 * @param thin        thin provisioned (allocated on write, unmap deallocates)
 * @param writeCache  write cache enabled, or null for the store's default
 * @param direct      O_DIRECT I/O, or null for the store's default
 * @param of          partition: the parent store's name; null for other types
 * @param offsetBytes partition: where it starts in the parent, in bytes; 0 for other types
 * @param encrypt     encryption at rest (file and block stores); {@link Encrypt#OFF} for others
 */
public record BackstoreConfig(String name, Type type, Path path, long sizeBytes, boolean create, int blockSize,
                              boolean thin, Boolean writeCache, Boolean direct, String of, long offsetBytes,
                              Encrypt encrypt) {

    /** A store without encryption. */
    public BackstoreConfig(String name, Type type, Path path, long sizeBytes, boolean create, int blockSize,
                           boolean thin, Boolean writeCache, Boolean direct, String of, long offsetBytes) {
        this(name, type, path, sizeBytes, create, blockSize, thin, writeCache, direct, of, offsetBytes, Encrypt.OFF);
    }

    /** This config with {@code size} set to {@code bytes} (a live resize). */
    public BackstoreConfig withSizeBytes(long bytes) {
        return new BackstoreConfig(name, type, path, bytes, create, blockSize, thin, writeCache, direct, of,
                offsetBytes, encrypt);
    }

    /** This config with {@code encrypt} set to {@code e}. */
    public BackstoreConfig withEncrypt(Encrypt e) {
        return new BackstoreConfig(name, type, path, sizeBytes, create, blockSize, thin, writeCache, direct, of,
                offsetBytes, e);
    }

    /**
     * The {@code encrypt} key: every block stored as XTS-AES-256 ciphertext, with the store's key in
     * {@code <daemon.state-dir>/keys/<name>.key}. A key is never made up for data that exists:
     * {@link #ON} uses the key file, and creates one only for a file that does not exist yet
     * ({@code create: true} creates it at this start); {@link #NEW} initialises encryption on an
     * existing file or device once (its current content becomes unreadable) and refuses to run
     * when a key file already exists, so it must be changed to {@code true} after the first start.
     */
    public enum Encrypt {
        /** {@code encrypt: false} (default): plaintext. */
        OFF,
        /** {@code encrypt: true}: encrypted with the existing key (or a new one for a file created now). */
        ON,
        /** {@code encrypt: new}: create the key for this existing store now (once). */
        NEW
    }

    /** A memory, file or block store. */
    public BackstoreConfig(String name, Type type, Path path, long sizeBytes, boolean create, int blockSize,
                           boolean thin, Boolean writeCache, Boolean direct) {
        this(name, type, path, sizeBytes, create, blockSize, thin, writeCache, direct, null, 0);
    }

    /** A store with the default I/O mode ({@code direct} absent). */
    public BackstoreConfig(String name, Type type, Path path, long sizeBytes, boolean create, int blockSize,
                           boolean thin, Boolean writeCache) {
        this(name, type, path, sizeBytes, create, blockSize, thin, writeCache, null);
    }

    /**
     * A partition of {@code parent}: {@code sizeBytes} bytes from {@code offsetBytes}. Block size,
     * thin and write cache are copied from the parent's config (block size 0 while the parent is a
     * block device whose block size is only known when it opens).
     */
    public static BackstoreConfig partition(String name, BackstoreConfig parent, long offsetBytes, long sizeBytes) {
        return new BackstoreConfig(name, Type.PARTITION, null, sizeBytes, false, parent.blockSize(), parent.thin(),
                parent.writeCache(), parent.direct(), parent.name(), offsetBytes);
    }

    /** True for a partition of another store. */
    public boolean isPartition() {
        return type == Type.PARTITION;
    }

    /** The default logical block size: what every initiator expects. */
    public static final int DEFAULT_BLOCK_SIZE = 512;

    /** Store kinds, named as in the config file. */
    public enum Type {
        MEMORY("memory"), FILE("file"), BLOCK("block"), PARTITION("partition");

        private final String configName;

        Type(String configName) {
            this.configName = configName;
        }

        /** The spelling in the config file. */
        public String configName() {
            return configName;
        }

        /** The type with this config spelling, or null. */
        public static Type of(String configName) {
            for (Type t : values()) {
                if (t.configName.equals(configName)) {
                    return t;
                }
            }
            return null;
        }
    }

    /** The number of logical blocks (0 while the block size comes from a device). */
    public long blockCount() {
        return blockSize == 0 ? 0 : sizeBytes / blockSize;
    }
}
