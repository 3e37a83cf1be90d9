package org.jtarget.ha;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on 127.0.0.1 that a test can cut (every connection through it is closed and new
 * ones are closed as they come) and restore: a network partition between two parts of a test.
 */
final class CuttableProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean cut;

    CuttableProxy(int targetPort) throws IOException {
        this.target = new InetSocketAddress("127.0.0.1", targetPort);
        this.server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    void cut() {
        cut = true;
        for (Socket s : sockets) {
            close(s);
        }
        sockets.clear();
    }

    void restore() {
        cut = false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket in = server.accept();
                if (cut) {
                    close(in);
                    continue;
                }
                Socket out = new Socket();
                try {
                    out.connect(target, 1000);
                } catch (IOException e) {
                    close(in);
                    close(out);
                    continue;
                }
                sockets.add(in);
                sockets.add(out);
                Thread.ofVirtual().start(() -> pump(in, out));
                Thread.ofVirtual().start(() -> pump(out, in));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void pump(Socket from, Socket to) {
        byte[] buf = new byte[64 << 10];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            // cut, or one side closed
        } finally {
            close(from);
            close(to);
        }
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closed already
        }
    }

    @Override
    public void close() throws IOException {
        cut();
        server.close();
    }
}
