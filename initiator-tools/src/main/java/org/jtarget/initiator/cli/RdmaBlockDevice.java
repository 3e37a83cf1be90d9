package org.jtarget.initiator.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import org.jtarget.initiator.rdma.StoreEndpointClient;
import org.jtarget.initiator.rdma.StoreEndpointException;

/**
 * An RDMA store endpoint through a {@link StoreEndpointClient}. A range reaching past the
 * endpoint's end is a usage error before anything moves, so that a write never stops half-way
 * (the endpoint would refuse the request crossing its end, after the ones before it were written).
 * The client's failures become exit codes: no connection 3 (login failed), an access the endpoint
 * refuses 4 (as a CHECK CONDITION), anything else 5.
 */
final class RdmaBlockDevice implements BlockDevice, AutoCloseable {

    private final RdmaUrl url;
    private final StoreEndpointClient client;

    private RdmaBlockDevice(RdmaUrl url, StoreEndpointClient client) {
        this.url = url;
        this.client = client;
    }

    /**
     * Connects to the endpoint; says on {@code err} when the staging memory could not be pinned.
     *
     * @param timeout for the connection, then for each completion
     */
    static RdmaBlockDevice open(RdmaUrl url, Duration timeout, PrintStream err) throws IOException, CliFailure {
        StoreEndpointClient client;
        try {
            client = StoreEndpointClient.connect(url.host(), url.port(), url.endpoint(), timeout);
        } catch (StoreEndpointException e) {
            throw new CliFailure(exitCode(e), url + ": " + e.getMessage());
        }
        if (client.unpinnedNote() != null) {
            err.println("jtarget-initiator: " + client.unpinnedNote()
                    + ": staging the data in unpinned memory; run as root or raise ulimit -l to pin it");
        }
        return new RdmaBlockDevice(url, client);
    }

    @Override
    public Capacity capacity() {
        return new Capacity(client.blockCount() - 1, client.blockSize());
    }

    @Override
    public void read(long lba, long blocks, ChunkSink sink) throws IOException, CliFailure {
        requireInside(lba, blocks);
        int blockSize = client.blockSize();
        try {
            client.read(lba, blocks,
                    (first, n, data) -> sink.accept(new Chunk(first, n, (first - lba) * blockSize), data));
        } catch (StoreEndpointException e) {
            throw new CliFailure(exitCode(e), e.getMessage());
        }
    }

    @Override
    public void write(long lba, long blocks, DataSource source) throws IOException, CliFailure {
        requireInside(lba, blocks);
        try {
            client.write(lba, blocks, source::next);
        } catch (StoreEndpointException e) {
            throw new CliFailure(exitCode(e), e.getMessage());
        }
    }

    private void requireInside(long lba, long blocks) throws CliFailure {
        long count = client.blockCount();
        if (lba >= count || blocks > count - lba) {
            throw CliFailure.usage("--lba " + lba + " --blocks " + blocks + " reach past the end of " + url + " ("
                    + count + " blocks)");
        }
    }

    private static int exitCode(StoreEndpointException e) {
        return switch (e.kind()) {
            case NOT_CONNECTED -> CliFailure.LOGIN_FAILED;
            case ACCESS_REFUSED -> CliFailure.CHECK_CONDITION;
            case FAILED -> CliFailure.IO_ERROR;
        };
    }

    /** Disconnects and frees the client's event loop and memory. */
    @Override
    public void close() {
        client.close();
    }
}
