package org.jtarget.backstore.file;

import java.nio.file.Path;

/**
 * What a {@link FileBackstore} is opened with.
 *
 * @param name       the store's name (logs, identity seed of messages)
 * @param path       the image file
 * @param sizeBytes  its size, a multiple of blockSize; an existing file must have exactly this size
 * @param create     create a missing file (sparse, with its folder)
 * @param blockSize  logical block size, 512 or 4096
 * @param thin       UNMAP punches holes (checked at open: the file system must support it)
 * @param writeCache WCE reported to initiators (true: writes may sit in the page cache until a flush)
 * @param direct     serve I/O through a second O_DIRECT descriptor (probed at open)
 */
public record FileStoreSettings(String name, Path path, long sizeBytes, boolean create, int blockSize, boolean thin,
                                boolean writeCache, boolean direct) {

    /** The number of logical blocks. */
    public long blockCount() {
        return sizeBytes / blockSize;
    }
}
