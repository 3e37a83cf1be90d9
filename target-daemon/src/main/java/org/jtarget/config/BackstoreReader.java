package org.jtarget.config;

import org.jtarget.config.BackstoreConfig.Type;
import org.jtarget.units.ByteSize;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads and checks {@code backstores[]}. For file stores it looks at the file system (exists,
 * regular file, size) so that a wrong path fails at load time with nothing started; the store
 * checks again when it opens.
 */
final class BackstoreReader {

    private static final Set<String> MEMORY_KEYS = ConfigNode.keys("name", "type", "size", "block-size",
            "thin", "write-cache");
    private static final Set<String> FILE_KEYS = ConfigNode.keys("name", "type", "path", "size", "create",
            "block-size", "thin", "write-cache", "direct", "encrypt");
    private static final Set<String> BLOCK_KEYS = ConfigNode.keys("name", "type", "path", "size",
            "block-size", "thin", "write-cache", "direct", "encrypt");
    /** Every key any store type knows: a key outside these is a typo whatever the type. */
    private static final Set<String> ALL_KEYS = ConfigNode.keys("name", "type", "path", "size", "create",
            "block-size", "thin", "write-cache", "direct", "encrypt", "of", "offset");
    /** S_IFMT and S_IFBLK of stat(2)'s st_mode: the file type bits and "block device". */
    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    private BackstoreReader() {
    }

    static List<BackstoreConfig> read(ConfigNode root, Path baseDir) throws ConfigException {
        return read(root, baseDir, Set.of());
    }

    /**
     * @param servedFiles files a running daemon serves (a reload): their size may differ from
     *                    {@code size}, since the daemon grows them itself or refuses the change
     */
    static List<BackstoreConfig> read(ConfigNode root, Path baseDir, Set<Path> servedFiles) throws ConfigException {
        List<BackstoreConfig> result = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<Path> paths = new HashSet<>();
        List<ConfigNode> nodes = root.maps("backstores");
        List<PartitionReader.Pending> partitions = new ArrayList<>();
        for (ConfigNode node : nodes) {
            BackstoreConfig b = readOne(node, baseDir, servedFiles);
            if (!names.add(b.name())) {
                throw node.error("name", "duplicate backstore name '" + b.name() + "'");
            }
            if (b.path() != null && !paths.add(b.path())) {
                throw node.error("path", "file " + b.path() + " is already used by another backstore");
            }
            if (b.isPartition()) {
                partitions.add(new PartitionReader.Pending(node, result.size(), b));
            }
            result.add(b);
        }
        PartitionReader.resolve(partitions, result);
        return result;
    }

    private static BackstoreConfig readOne(ConfigNode node, Path baseDir, Set<Path> servedFiles)
            throws ConfigException {
        node.requireOnlyKeys(ALL_KEYS);
        String name = node.requireString("name");
        String typeName = node.requireString("type");
        Type type = Type.of(typeName);
        if (type == null) {
            throw node.error("type", "unknown type '" + typeName + "' (expected memory, file, block or partition)");
        }
        if (type == Type.PARTITION) {
            return PartitionReader.readOne(node, name);
        }
        node.requireOnlyKeys(FILE_KEYS);
        if (type == Type.MEMORY) {
            node.requireOnlyKeys(MEMORY_KEYS);
        }
        if (type == Type.BLOCK) {
            node.requireOnlyKeys(BLOCK_KEYS);
            return readBlock(node, name, baseDir).withEncrypt(encrypt(node));
        }
        int blockSize = node.integer("block-size", BackstoreConfig.DEFAULT_BLOCK_SIZE, 512, 4096);
        if (blockSize != 512 && blockSize != 4096) {
            throw node.error("block-size", "must be 512 or 4096, got " + blockSize);
        }
        boolean thin = node.bool("thin", type == Type.MEMORY);
        Boolean writeCache = node.optionalBool("write-cache");
        if (type == Type.MEMORY) {
            long size = size(node, blockSize, true);
            return new BackstoreConfig(name, type, null, size, false, blockSize, thin, writeCache);
        }
        Path path = baseDir.resolve(node.requireString("path")).normalize();
        boolean create = node.bool("create", false);
        long size = size(node, blockSize, create);
        if (size == 0 || !servedFiles.contains(path)) {
            size = checkFile(node, path, create, size, blockSize);
        }
        return new BackstoreConfig(name, type, path, size, create, blockSize, thin, writeCache,
                node.optionalBool("direct")).withEncrypt(encrypt(node));
    }

    /** The {@code encrypt} key: {@code false} (default), {@code true} or {@code new}. */
    private static BackstoreConfig.Encrypt encrypt(ConfigNode node) throws ConfigException {
        Object v = node.scalar("encrypt");
        if (v == null || Boolean.FALSE.equals(v)) {
            return BackstoreConfig.Encrypt.OFF;
        }
        if (Boolean.TRUE.equals(v)) {
            return BackstoreConfig.Encrypt.ON;
        }
        if ("new".equals(v)) {
            return BackstoreConfig.Encrypt.NEW;
        }
        throw node.error("encrypt", "expected true, false or new, got '" + v + "'");
    }

    /**
     * A block device store: the path must name a block device now; its size and logical block
     * size come from the device when it opens, so {@code size} and {@code block-size} are optional
     * (0 here) and, when given, checked against the device then.
     */
    private static BackstoreConfig readBlock(ConfigNode node, String name, Path baseDir) throws ConfigException {
        Path path = baseDir.resolve(node.requireString("path")).normalize();
        if (!isBlockDevice(path)) {
            throw node.error("path", Files.exists(path) ? path + " is not a block device" : "no such device " + path);
        }
        int blockSize = node.integer("block-size", 0, 512, 4096);
        if (blockSize != 0 && blockSize != 512 && blockSize != 4096) {
            throw node.error("block-size", "must be 512 or 4096, got " + blockSize);
        }
        long size = size(node, blockSize == 0 ? 512 : blockSize, false);
        return new BackstoreConfig(name, Type.BLOCK, path, size, false, blockSize, node.bool("thin", false),
                node.optionalBool("write-cache"), node.optionalBool("direct"));
    }

    private static boolean isBlockDevice(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode");
            return (mode & S_IFMT) == S_IFBLK;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** The {@code size} key in bytes (0 if absent and not required), a positive multiple of the block size. */
    private static long size(ConfigNode node, int blockSize, boolean required) throws ConfigException {
        long size = bytes(node, "size", required);
        return size == -1 ? 0 : checkMultiple(node, size, blockSize);
    }

    /**
     * A byte-size key ({@code 4096}, {@code 1GiB}...): its value, or -1 if absent and not required.
     * Used for every key that holds bytes so that all accept the same spellings.
     */
    static long bytes(ConfigNode node, String key, boolean required) throws ConfigException {
        Object v = node.scalar(key);
        if (v == null) {
            if (required) {
                throw node.error(key, "missing (required)");
            }
            return -1;
        }
        try {
            return ByteSize.parse(v);
        } catch (IllegalArgumentException e) {
            throw node.error(key, e.getMessage());
        }
    }

    private static long checkMultiple(ConfigNode node, long size, int blockSize) throws ConfigException {
        if (size <= 0 || size % blockSize != 0) {
            throw node.error("size", "must be a positive multiple of the block size " + blockSize + ", got " + size);
        }
        return size;
    }

    /**
     * An existing file must match {@code size} (or gives the size when it is absent); a missing
     * file needs {@code create: true}. Returns the size to use.
     */
    private static long checkFile(ConfigNode node, Path path, boolean create, long size, int blockSize)
            throws ConfigException {
        if (!Files.exists(path)) {
            if (!create) {
                throw node.error("path", "no such file " + path + " (add 'create: true' to create it)");
            }
            return size;
        }
        if (!Files.isRegularFile(path)) {
            throw node.error("path", path + " is not a regular file");
        }
        long actual;
        try {
            actual = Files.size(path);
        } catch (IOException e) {
            throw node.error("path", "cannot read size of " + path + ": " + e.getMessage());
        }
        if (size == 0) {
            return checkMultiple(node, actual, blockSize);
        }
        if (actual != size) {
            throw node.error("size", "file " + path + " is " + actual + " bytes but size is " + size
                    + " (fix size, or resize the file yourself)");
        }
        return size;
    }
}
