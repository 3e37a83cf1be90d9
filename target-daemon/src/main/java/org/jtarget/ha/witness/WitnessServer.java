package org.jtarget.ha.witness;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The witness of HA pairs ({@code jtargetd --witness}): a TCP listener that answers each request
 * line ({@link WitnessRequest}) with one answer line, from the rules of {@link WitnessBook}. It
 * holds no storage and serves any number of pairs. One virtual thread per connection: requests
 * are a few a second per pair, so plain blocking sockets are the simplest correct server. A line
 * that is not a request, or longer than {@link WitnessRequest#MAX_LINE}, is answered REFUSED and
 * the connection closed; an idle connection is closed after 30 s.
 */
public final class WitnessServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WitnessServer.class);
    private static final int IDLE_MILLIS = 30_000;

    private final WitnessBook book;
    private final ServerSocket server;

    private WitnessServer(WitnessBook book, ServerSocket server) {
        this.book = book;
        this.server = server;
    }

    /** Binds {@code listen}, reads {@code stateFile} and starts answering. */
    public static WitnessServer start(InetSocketAddress listen, Path stateFile) throws IOException {
        WitnessBook book = new WitnessBook(stateFile, System.nanoTime());
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(listen);
        WitnessServer w = new WitnessServer(book, server);
        Thread.ofVirtual().name("witness-accept").start(w::accept);
        LOG.info("witness listening on {}, state in {}", server.getLocalSocketAddress(), stateFile);
        return w;
    }

    /** Where it listens (the port the system chose for port 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread.ofVirtual().name("witness-connection").start(() -> serve(s));
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.warn("witness: accept failed: {}", e.getMessage());
                }
            }
        }
    }

    private void serve(Socket s) {
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
             OutputStream out = s.getOutputStream()) {
            s.setSoTimeout(IDLE_MILLIS);
            s.setTcpNoDelay(true);
            for (String line = readLine(in); line != null; line = readLine(in)) {
                WitnessRequest r = WitnessRequest.decode(line);
                WitnessAnswer a = r == null ? new WitnessAnswer.Refused("not a witness request")
                        : book.handle(r, System.nanoTime());
                out.write((WitnessAnswer.encode(a) + "\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                if (r == null) {
                    LOG.warn("witness: {} sent a line that is not a request; connection closed", s.getRemoteSocketAddress());
                    return;
                }
            }
        } catch (SocketTimeoutException | SocketException e) {
            // idle, or the peer went away
        } catch (IOException e) {
            LOG.warn("witness: connection from {}: {}", s.getRemoteSocketAddress(), e.getMessage());
        }
    }

    /** One line of at most {@link WitnessRequest#MAX_LINE} characters; a longer one reads as garbage. */
    private static String readLine(BufferedReader in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return null;
            }
            if (b.length() == WitnessRequest.MAX_LINE) {
                return "";
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
