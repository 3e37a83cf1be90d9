package org.jtarget.backstore.block;

import java.nio.file.Path;

/**
 * What a {@link BlockBackstore} is opened with.
 *
 * @param name       the store's name (logs)
 * @param path       the block device
 * @param sizeBytes  the size the device must have, or 0 to take the device's
 * @param blockSize  the logical block size the device must have, or 0 to take the device's
 * @param thin       UNMAP zeroes ranges on the device (checked at open: the device must offer it)
 * @param writeCache WCE reported to initiators
 * @param direct     O_DIRECT I/O, bypassing the page cache
 */
public record BlockStoreSettings(String name, Path path, long sizeBytes, int blockSize, boolean thin,
                                 boolean writeCache, boolean direct) {
}
