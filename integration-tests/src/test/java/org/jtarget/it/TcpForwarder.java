package org.jtarget.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder from a port of its own on 127.0.0.1 to {@code 127.0.0.1:target}, which a test can
 * cut (every connection through it is closed, and new ones are closed as they arrive: a network
 * partition between the two sides) and restore. A daemon configured with the forwarder's port
 * instead of the target's reaches the target only through it.
 */
final class TcpForwarder implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;

    TcpForwarder(int target) throws IOException {
        this.target = new InetSocketAddress(DaemonProcess.HOST, target);
        this.listener = new ServerSocket(0, 50, InetAddress.getByName(DaemonProcess.HOST));
        Thread.ofVirtual().name("forwarder-" + port()).start(this::acceptLoop);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Closes every connection through the forwarder and refuses new ones until {@link #restore}. */
    void cut() {
        cut = true;
        open.forEach(TcpForwarder::closeQuietly);
        open.clear();
    }

    /** Forwards new connections again. */
    void restore() {
        cut = false;
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (cut) {
                closeQuietly(client);
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(target, 1000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            open.add(client);
            open.add(server);
            if (cut) { // cut while this one was being connected
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            Thread.ofVirtual().start(() -> copy(client, server));
            Thread.ofVirtual().start(() -> copy(server, client));
        }
    }

    /** Copies {@code from} to {@code to} until either ends; then both end. */
    private void copy(Socket from, Socket to) {
        byte[] buffer = new byte[64 << 10];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // cut, or a side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closed already
        }
    }

    @Override
    public void close() throws IOException {
        cut();
        listener.close();
    }
}
