package org.jtarget.backstore.spi;

import org.jtarget.buffer.ScatterList;

import java.io.IOException;

/**
 * A store whose writes may complete later without holding a thread (an HA pair's store waits for
 * its peer's answer): the core tries this first, on the event loop, and falls back to the
 * blocking {@link Backstore#write} on the LU's I/O executor when the store cannot start at once.
 */
public interface AsyncWriter {

    /** The end of an asynchronous write; called exactly once, from any thread. */
    interface Done {
        /** @param failure null when the write is done (durable if it asked for FUA), else why not */
        void done(IOException failure);
    }

    /**
     * Starts writing {@code length} bytes of {@code src} (whole blocks) at {@code lba} without
     * blocking. Returns false when it cannot (nothing was done, {@code done} will not be called:
     * the caller writes synchronously); true when {@code done} will be called exactly once, never
     * from inside this call. {@code src} is borrowed until then.
     */
    boolean tryWriteAsync(long lba, ScatterList src, int length, boolean fua, Done done);
}
