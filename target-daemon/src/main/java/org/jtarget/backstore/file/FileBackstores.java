package org.jtarget.backstore.file;

import io.netty.buffer.Unpooled;
import org.jtarget.backstore.block.PositionalIo;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreOpenException;
import org.jtarget.backstore.spi.StoreOpenException.Setting;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Opens {@link FileBackstore}s: creates a missing file sparse when asked to (its folder too), checks
 * the size, and reports problems as {@link StoreOpenException}s naming the setting.
 */
public final class FileBackstores {

    private FileBackstores() {
    }

    /** Opens (and if allowed creates) the file store described by {@code config}; the caller owns and closes it. */
    public static FileBackstore open(FileStoreSettings config) throws StoreOpenException {
        Path path = config.path();
        try {
            if (!Files.exists(path)) {
                createSparse(config);
            }
            Path real = path.toRealPath();
            if (!Files.isRegularFile(real)) {
                throw error(Setting.PATH, real + " is not a regular file");
            }
            long actual = Files.size(real);
            if (actual != config.sizeBytes()) {
                throw error(Setting.SIZE, "file " + real + " is " + actual + " bytes but size is "
                        + config.sizeBytes() + " (fix size, or resize the file yourself)");
            }
            return openChannel(config, real);
        } catch (AccessDeniedException e) {
            throw error(Setting.PATH, "permission denied: " + e.getFile());
        } catch (IOException e) {
            throw error(Setting.PATH, "cannot open " + path + ": " + e);
        }
    }

    private static FileBackstore openChannel(FileStoreSettings config, Path real)
            throws IOException, StoreOpenException {
        FileChannel channel = FileChannel.open(real, StandardOpenOption.READ, StandardOpenOption.WRITE);
        Object fileKey = Files.readAttributes(real, BasicFileAttributes.class).fileKey();
        // The page cache and the file system write and allocate whole 4 KiB blocks: that is the
        // physical block (SBC-4 4.6.2), so initiators align their I/O and UNMAP to it.
        int physicalExponent = Integer.numberOfTrailingZeros(Math.max(1, FileBackstore.FS_BLOCK / config.blockSize()));
        BackstoreInfo info = new BackstoreInfo(config.blockSize(), config.blockCount(), config.writeCache(),
                config.thin(), false, 0, 0, "file:" + real, physicalExponent);
        LinuxFileHoles holes = null;
        try {
            if (config.thin()) {
                holes = LinuxFileHoles.open(real);
                // Probe past the end (KEEP_SIZE: nothing changes) so a file system without hole
                // punching is a config error now rather than a WRITE ERROR on the first UNMAP.
                holes.punchHole(config.sizeBytes(), FileBackstore.FS_BLOCK);
            }
        } catch (IOException | RuntimeException e) {
            channel.close();
            if (holes != null) {
                holes.close();
            }
            throw error(Setting.THIN, "cannot punch holes in " + real + ": " + e.getMessage());
        }
        PositionalIo direct = null;
        if (config.direct()) {
            try {
                direct = openDirect(config, real);
            } catch (StoreOpenException e) {
                channel.close();
                if (holes != null) {
                    holes.close();
                }
                throw e;
            }
        }
        return new FileBackstore(config.name(), real, channel, info, fileKey, holes, direct);
    }

    /**
     * A second descriptor with O_DIRECT, probed with a one-block read at the second block's offset
     * (through the aligned bounce path), so a file system without O_DIRECT, or one that needs
     * larger alignment than the block size, is a config error now rather than I/O errors later.
     */
    private static PositionalIo openDirect(FileStoreSettings config, Path real) throws StoreOpenException {
        PositionalIo io;
        try {
            io = PositionalIo.open(real, true, false);
        } catch (IOException e) {
            throw error(Setting.DIRECT, "cannot open " + real + " with O_DIRECT: " + e.getMessage());
        }
        var probe = Unpooled.buffer(config.blockSize());
        try {
            long offset = config.blockCount() > 1 ? config.blockSize() : 0;
            io.read(offset, config.blockSize(), probe, 0);
            return io;
        } catch (IOException e) {
            try {
                io.close();
            } catch (IOException ignored) {
                // the probe's error is the one to report
            }
            throw error(Setting.DIRECT, "O_DIRECT I/O of " + config.blockSize() + "-byte blocks fails on "
                    + real + ": " + e.getMessage() + " (set direct: false)");
        } finally {
            probe.release();
        }
    }

    /** Creates the file and sets its length without writing data (ftruncate: a sparse file). */
    private static void createSparse(FileStoreSettings config) throws IOException, StoreOpenException {
        Path path = config.path();
        if (!config.create()) {
            throw error(Setting.PATH, "no such file " + path + " (add 'create: true' to create it)");
        }
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        try {
            Files.createFile(path);
        } catch (FileAlreadyExistsException raced) {
            return;
        }
        try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw")) {
            raf.setLength(config.sizeBytes());
        }
    }

    private static StoreOpenException error(Setting setting, String problem) {
        return new StoreOpenException(setting, problem);
    }
}
