package org.jtarget.initiator.rdmabench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The yardstick: a plain TCP stream of {@code size}-byte messages between the same two processes,
 * blocking NIO with direct buffers, one thread per side, TCP_NODELAY as the provider uses. "write"
 * streams client to server (timed until the server confirms the byte count), "read" server to
 * client. Each side sends from or receives into {@code footprint} bytes of memory, one
 * {@code size}-byte slice after the other, as the provider's requests use the same number of
 * buffers (one, or one per request in flight).
 */
final class TcpBaseline {

    private static final byte WRITE = 'W';
    private static final byte READ = 'R';
    /** Mode u8, message size u32, footprint u32. */
    private static final int HELLO = 9;

    private TcpBaseline() {
    }

    /** Client side: bytes per second of one stream. */
    static double measure(InetSocketAddress server, boolean write, int size, int footprint, long nanos)
            throws IOException {
        try (SocketChannel ch = SocketChannel.open(server)) {
            ch.socket().setTcpNoDelay(true);
            ByteBuffer hello = ByteBuffer.allocate(HELLO).put(write ? WRITE : READ).putInt(size).putInt(footprint).flip();
            while (hello.hasRemaining()) {
                ch.write(hello);
            }
            ByteBuffer memory = ByteBuffer.allocateDirect(footprint);
            long start = System.nanoTime();
            long end = start + nanos;
            long bytes = 0;
            int next = 0;
            if (write) {
                while (System.nanoTime() < end) {
                    ByteBuffer buf = next(memory, size, next++);
                    while (buf.hasRemaining()) {
                        bytes += ch.write(buf);
                    }
                }
                ch.shutdownOutput();
                ByteBuffer count = ByteBuffer.allocate(8);
                while (count.hasRemaining() && ch.read(count) >= 0) {
                    // wait for the server's count: everything written has arrived
                }
                bytes = count.flip().remaining() == 8 ? count.getLong() : bytes;
            } else {
                while (System.nanoTime() < end) {
                    ByteBuffer buf = next(memory, size, next++);
                    while (buf.hasRemaining() && System.nanoTime() < end) {
                        int n = ch.read(buf);
                        if (n < 0) {
                            return bytes / ((System.nanoTime() - start) / 1e9);
                        }
                        bytes += n;
                    }
                }
            }
            return bytes / ((System.nanoTime() - start) / 1e9);
        }
    }

    /** The {@code i}-th {@code size}-byte slice of {@code memory}, round robin. */
    private static ByteBuffer next(ByteBuffer memory, int size, int i) {
        int slices = memory.capacity() / size;
        return memory.clear().position((i % slices) * size).limit((i % slices) * size + size);
    }

    /** Server side: serves streams on {@code server} until it is closed (one daemon thread each). */
    static void serve(ServerSocketChannel server) {
        Thread t = new Thread(() -> {
            while (server.isOpen()) {
                try {
                    SocketChannel ch = server.accept();
                    Thread s = new Thread(() -> stream(ch), "rdma-bench-baseline");
                    s.setDaemon(true);
                    s.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "rdma-bench-baseline-accept");
        t.setDaemon(true);
        t.start();
    }

    private static void stream(SocketChannel ch) {
        try (ch) {
            ch.socket().setTcpNoDelay(true);
            ByteBuffer hello = ByteBuffer.allocate(HELLO);
            while (hello.hasRemaining() && ch.read(hello) >= 0) {
                // header
            }
            hello.flip();
            byte mode = hello.get();
            int size = hello.getInt();
            ByteBuffer memory = ByteBuffer.allocateDirect(hello.getInt());
            int next = 0;
            if (mode == WRITE) {
                long total = 0;
                int n = 0;
                while (n >= 0) {
                    ByteBuffer buf = next(memory, size, next++);
                    while (buf.hasRemaining() && (n = ch.read(buf)) >= 0) {
                        total += n;
                    }
                }
                ByteBuffer count = ByteBuffer.allocate(8).putLong(total).flip();
                while (count.hasRemaining()) {
                    ch.write(count);
                }
            } else {
                while (true) {
                    ByteBuffer buf = next(memory, size, next++);
                    while (buf.hasRemaining()) {
                        ch.write(buf);
                    }
                }
            }
        } catch (IOException e) {
            // the client closed: the stream is over
        }
    }

    static ServerSocketChannel open() throws IOException {
        return ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    }
}
