package org.jtarget.backstore.block;

import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreOpenException;
import org.jtarget.backstore.spi.StoreOpenException.Setting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Opens {@link BlockBackstore}s: exclusive open (a device that is mounted or served by another
 * daemon is a problem with the path), geometry from the device's ioctls checked against the size
 * and block size when given, and thin provisioning checked against what the device can do.
 * Problems are {@link StoreOpenException}s naming the setting.
 */
public final class BlockBackstores {

    private static final Logger LOG = LoggerFactory.getLogger(BlockBackstores.class);

    private BlockBackstores() {
    }

    /** Opens the block device store described by {@code config}; the caller owns and closes it. */
    public static BlockBackstore open(BlockStoreSettings config) throws StoreOpenException {
        Path real = realPath(config);
        boolean direct = config.direct();
        PositionalIo io = openDevice(real, direct);
        try {
            return describe(config, real, io);
        } catch (StoreOpenException | RuntimeException e) {
            closeQuietly(io);
            throw e;
        }
    }

    private static Path realPath(BlockStoreSettings config) throws StoreOpenException {
        try {
            return config.path().toRealPath();
        } catch (IOException e) {
            throw error(Setting.PATH, "no such device " + config.path());
        }
    }

    /** open(2) O_RDWR | O_EXCL | O_CLOEXEC (| O_DIRECT): EBUSY means someone else holds the device. */
    private static PositionalIo openDevice(Path real, boolean direct) throws StoreOpenException {
        try {
            return PositionalIo.open(real, direct, true);
        } catch (ErrnoException e) {
            String problem = switch (e.errno()) {
                case NativeIo.EBUSY -> "device " + real + " is in use (mounted, or opened exclusively by another"
                        + " program such as a second jtarget daemon)";
                case NativeIo.EACCES -> "permission denied: " + real;
                case NativeIo.EINVAL -> direct ? "device " + real + " does not support O_DIRECT (set direct: false)"
                        : "cannot open " + real + ": " + e.getMessage();
                default -> "cannot open " + real + ": " + e.getMessage();
            };
            throw error(Setting.PATH, problem);
        }
    }

    /** Reads the geometry, checks it against the config and builds the store. */
    private static BlockBackstore describe(BlockStoreSettings config, Path real, PositionalIo io)
            throws StoreOpenException {
        long size;
        int logical;
        int physical;
        try {
            size = NativeIo.ioctlLong(io.fd(), NativeIo.BLKGETSIZE64, real.toString());
            logical = NativeIo.ioctlInt(io.fd(), NativeIo.BLKSSZGET, real.toString());
            physical = NativeIo.ioctlInt(io.fd(), NativeIo.BLKPBSZGET, real.toString());
        } catch (ErrnoException e) {
            throw error(Setting.PATH, real + " is not a usable block device: " + e.getMessage());
        }
        checkGeometry(config, real, size, logical);
        BlockQueueLimits limits = BlockQueueLimits.of(rdev(real));
        if (config.thin() && limits.writeZeroesMaxBytes() <= 0) {
            throw error(Setting.THIN, "device " + real + " cannot zero ranges itself (queue/write_zeroes_max_bytes"
                    + " is 0), so unmapped blocks could not be promised to read as zeros; remove thin: true");
        }
        BackstoreInfo info = new BackstoreInfo(logical, size / logical, config.writeCache(), config.thin(), false, 0, 0,
                "block:" + real, exponent(logical, physical));
        LOG.info("block store {}: {} {} bytes, logical block {}, physical block {}, direct {}, thin {}",
                config.name(), real, size, logical, physical, io.direct(), config.thin());
        return new BlockBackstore(config.name(), io, info, (int) (limits.discardGranularity() / logical));
    }

    private static void checkGeometry(BlockStoreSettings config, Path real, long size, int logical)
            throws StoreOpenException {
        if (logical != 512 && logical != 4096) {
            throw error(Setting.PATH, "device " + real + " has " + logical
                    + "-byte logical blocks; only 512 and 4096 are supported");
        }
        if (config.blockSize() != 0 && config.blockSize() != logical) {
            throw error(Setting.BLOCK_SIZE, "device " + real + " has " + logical + "-byte logical blocks but"
                    + " block-size is " + config.blockSize() + " (omit block-size to use the device's)");
        }
        if (config.sizeBytes() != 0 && config.sizeBytes() != size) {
            throw error(Setting.SIZE, "device " + real + " is " + size + " bytes but size is "
                    + config.sizeBytes() + " (omit size to use the device's)");
        }
        if (size < logical) {
            throw error(Setting.PATH, "device " + real + " is empty");
        }
    }

    /** LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT (SBC-4 5.20.2): log2(physical / logical), 0 if odd. */
    static int exponent(int logical, int physical) {
        if (physical <= logical || physical % logical != 0 || Integer.bitCount(physical / logical) != 1) {
            return 0;
        }
        return Integer.numberOfTrailingZeros(physical / logical);
    }

    private static long rdev(Path real) {
        try {
            return ((Number) Files.getAttribute(real, "unix:rdev")).longValue();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return 0;
        }
    }

    private static void closeQuietly(PositionalIo io) {
        try {
            io.close();
        } catch (IOException e) {
            LOG.warn("closing {} after a failed open: {}", io, e.getMessage());
        }
    }

    private static StoreOpenException error(Setting setting, String problem) {
        return new StoreOpenException(setting, problem);
    }
}
