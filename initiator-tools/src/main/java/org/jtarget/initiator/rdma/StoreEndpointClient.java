package org.jtarget.initiator.rdma;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jtarget.fabric.endpoint.EndpointHandshake;
import org.jtarget.initiator.rdma.StoreEndpointException.Kind;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;

/**
 * One connection to a store endpoint of the daemon ({@code org.jtarget.fabric.endpoint.StoreEndpoint})
 * over the iwarp provider: connects with the endpoint's name in the private data
 * ({@link EndpointHandshake}), learns the rkey, block size and length from the accept, then RDMA
 * READs and WRITEs whole blocks one-sided through {@link #STAGING_BYTES} of memory registered
 * once. Not thread-safe: one transfer at a time.
 *
 * <p>Block addresses are the endpoint's own, zero-based. The client does not check them against
 * {@link #blockCount()}: the endpoint refuses what lies outside ({@link Kind#ACCESS_REFUSED}).
 * After any failure of a transfer, including one thrown by its sink or source, the client is
 * unusable (completions may still be owed): close it.
 */
public final class StoreEndpointClient implements AutoCloseable {

    /** Registered once; every byte moved passes through it. */
    public static final int STAGING_BYTES = 1 << 20;
    /** The largest request, so that several are in flight within the staging memory. */
    public static final int REQUEST_BYTES = 256 << 10;
    private static final int MAX_IN_FLIGHT = STAGING_BYTES / REQUEST_BYTES;

    private final TcpProviderStack stack;
    private final CmId connection;
    private final EndpointHandshake.Accepted endpoint;
    private final TransferWindow window;

    private StoreEndpointClient(TcpProviderStack stack, CmId connection, EndpointHandshake.Accepted endpoint,
                                TransferWindow window) {
        this.stack = stack;
        this.connection = connection;
        this.endpoint = endpoint;
        this.window = window;
    }

    /**
     * Connects to endpoint {@code name} of the listener at {@code host:port}.
     *
     * @param timeout how long to wait for the connection, and then for each completion
     * @throws StoreEndpointException {@link Kind#NOT_CONNECTED} when nothing listens, the host is
     *                                unreachable or unknown, the endpoint rejects us (the message is
     *                                {@link EndpointHandshake#describeReject}'s) or does not answer in time
     * @throws IllegalArgumentException for a name that is empty or longer than 64 UTF-8 bytes
     */
    public static StoreEndpointClient connect(String host, int port, String name, Duration timeout)
            throws IOException {
        byte[] request = EndpointHandshake.request(name);
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw notConnected("unknown host " + host);
        }
        TcpProviderStack stack = TcpProviderStack.open(STAGING_BYTES);
        try {
            TcpDevice device = stack.device();
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionWaiter waiter = new CompletionWaiter();
            // room for every request in flight twice over: a flush after an error never overflows it
            CompletionQueue cq = device.createCompletionQueue(2 * MAX_IN_FLIGHT, waiter);
            QueuePair qp = device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, MAX_IN_FLIGHT, 1, 1, 1));
            // LOCAL_WRITE only: READ responses land here; the endpoint never accesses our memory
            MemoryRegion staging = pd.registerMemoryRegion(stack.memory().segment(),
                    EnumSet.of(AccessFlag.LOCAL_WRITE));
            CompletableFuture<byte[]> termination = new CompletableFuture<>();
            CmEvent answer = handshake(stack.connectionManager(), qp, address, request, timeout, termination);
            EndpointHandshake.Accepted endpoint = accepted(answer);
            TransferWindow window = TransferWindow.create(qp, waiter, staging, endpoint, REQUEST_BYTES, timeout,
                    termination);
            return new StoreEndpointClient(stack, answer.id(), endpoint, window);
        } catch (RdmaException e) {
            stack.close();
            throw new StoreEndpointException(Kind.FAILED, "cannot set up the RDMA client: " + e.getMessage(), null);
        } catch (IOException | RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    /**
     * Asks the listener at {@code address} for a connection of {@code qp}; returns the first event
     * (ESTABLISHED, REJECTED or UNREACHABLE); {@code termination} gets a later DISCONNECTED event's data.
     * Shared with the iSER client, whose connection is made the same way.
     */
    public static CmEvent handshake(TcpConnectionManager cm, QueuePair qp, InetSocketAddress address, byte[] request,
                                     Duration timeout, CompletableFuture<byte[]> termination) throws StoreEndpointException, InterruptedIOException {
        CompletableFuture<CmEvent> answer = new CompletableFuture<>();
        // connect() blocks until the TCP connection is up (and throws when it cannot be made, with
        // Netty's own 30 s limit): it runs aside so that the timeout bounds it. If it is still
        // waiting when we give up, closing the stack closes its channel and ends it.
        Thread.ofVirtual().name("rdma-connect").start(() -> {
            try {
                // the first event answers the connect; a later DISCONNECTED says why the connection
                // ended (the peer's TERMINATE, if any)
                cm.connect(address, qp, request, event -> {
                    if (!answer.complete(event) && event.type() == org.jtarget.rdma.cm.CmEventType.DISCONNECTED) {
                        termination.complete(event.privateData());
                    }
                });
            } catch (RdmaException | RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        try {
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw notConnected(e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw notConnected("no answer within " + describe(timeout));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while connecting to " + address);
        }
    }

    /** What an ESTABLISHED event's accept says; any other answer is a failure in words. */
    private static EndpointHandshake.Accepted accepted(CmEvent answer) throws StoreEndpointException {
        return switch (answer.type()) {
            case ESTABLISHED -> {
                EndpointHandshake.Accepted a = EndpointHandshake.accepted(answer.privateData());
                if (a == null) {
                    throw notConnected("not a store endpoint: its accept carries no rkey, block size and length");
                }
                yield a;
            }
            case REJECTED -> throw notConnected(EndpointHandshake.describeReject(answer.privateData()));
            default -> throw notConnected("unreachable: the connection closed before the endpoint answered");
        };
    }

    private static StoreEndpointException notConnected(String message) {
        return new StoreEndpointException(Kind.NOT_CONNECTED, message, null);
    }

    /** {@code 30 s}, or {@code 250 ms} for a duration that is not whole seconds. */
    static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** The endpoint's block size in bytes. */
    public int blockSize() {
        return endpoint.blockSize();
    }

    /** The number of blocks the endpoint exposes (LBAs 0..blockCount-1). */
    public long blockCount() {
        return endpoint.blockCount();
    }

    /** Null when the staging memory is locked in RAM, else why not (e.g. {@code mlock of 1 MiB refused (errno 12)}). */
    public String unpinnedNote() {
        return stack.memory().unpinnedNote();
    }

    /**
     * Reads {@code blocks} blocks from {@code lba}, handing them to {@code sink} in order.
     *
     * @throws StoreEndpointException {@link Kind#ACCESS_REFUSED} when the endpoint refuses (outside its
     *                                blocks), {@link Kind#FAILED} on a store I/O error, a lost connection
     *                                or no completion within the timeout
     * @throws IllegalArgumentException when the blocks have no remote address (a negative or huge LBA)
     */
    public <X extends Exception> void read(long lba, long blocks, BlockSink<X> sink) throws IOException, X {
        window.read(lba, blocks, sink);
    }

    /**
     * Writes {@code blocks} blocks from {@code lba} with the bytes of {@code source}; returns when the
     * endpoint has completed them all (on stable storage if the endpoint is write-through).
     *
     * @throws StoreEndpointException as {@link #read}; {@link Kind#ACCESS_REFUSED} also for a read-only endpoint
     */
    public <X extends Exception> void write(long lba, long blocks, BlockSource<X> source) throws IOException, X {
        window.write(lba, blocks, source);
    }

    /** Disconnects and frees everything (event loop, queue pair, registered memory). */
    @Override
    public void close() {
        connection.disconnect();
        stack.close();
    }
}
