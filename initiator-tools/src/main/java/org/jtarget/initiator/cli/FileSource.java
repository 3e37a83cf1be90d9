package org.jtarget.initiator.cli;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The bytes of a file ({@code --in FILE}), from its start; a file shorter than the transfer is an error. */
public final class FileSource implements DataSource, AutoCloseable {

    private final Path path;
    private final InputStream in;

    public FileSource(Path path) throws IOException {
        this.path = path;
        this.in = Files.newInputStream(path);
    }

    @Override
    public void next(byte[] chunk, int length) throws IOException {
        int n = in.readNBytes(chunk, 0, length);
        if (n < length) {
            throw new EOFException(path + " is shorter than the requested blocks");
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
