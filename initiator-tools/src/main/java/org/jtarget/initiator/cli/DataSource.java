package org.jtarget.initiator.cli;

import java.io.IOException;

/** Supplies the bytes of a write or of the expected data of a verify, in order, chunk by chunk. */
public interface DataSource {

    /** Fills {@code chunk[0..length)} with the next bytes. */
    void next(byte[] chunk, int length) throws IOException;
}
