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
 * client.
 */
final class TcpBaseline {

    private static final byte WRITE = 'W';
    private static final byte READ = 'R';

    private TcpBaseline() {
    }

    /** Client side: bytes per second of one stream. */
    static double measure(InetSocketAddress server, boolean write, int size, long nanos) throws IOException {
        try (SocketChannel ch = SocketChannel.open(server)) {
            ch.socket().setTcpNoDelay(true);
            ByteBuffer hello = ByteBuffer.allocate(5).put(write ? WRITE : READ).putInt(size).flip();
            while (hello.hasRemaining()) {
                ch.write(hello);
            }
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            long start = System.nanoTime();
            long end = start + nanos;
            long bytes = 0;
            if (write) {
                while (System.nanoTime() < end) {
                    buf.clear();
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
                    buf.clear();
                    int n = ch.read(buf);
                    if (n < 0) {
                        break;
                    }
                    bytes += n;
                }
            }
            return bytes / ((System.nanoTime() - start) / 1e9);
        }
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
            ByteBuffer hello = ByteBuffer.allocate(5);
            while (hello.hasRemaining() && ch.read(hello) >= 0) {
                // header
            }
            hello.flip();
            byte mode = hello.get();
            ByteBuffer buf = ByteBuffer.allocateDirect(hello.getInt());
            if (mode == WRITE) {
                long total = 0;
                int n;
                while ((n = ch.read(buf.clear())) >= 0) {
                    total += n;
                }
                ByteBuffer count = ByteBuffer.allocate(8).putLong(total).flip();
                while (count.hasRemaining()) {
                    ch.write(count);
                }
            } else {
                while (true) {
                    buf.clear();
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
