package org.jtarget.ha.witness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A node's way to the witness: one request, one answer, on a connection kept open between
 * requests and made again when it fails. Blocking, with {@code timeout} for the connect and for
 * the answer; a witness that cannot be reached in time is a refusal (the node must not count
 * on a grant it did not get). One thread at a time.
 */
public final class WitnessClient implements AutoCloseable {

    private final String host;
    private final int port;
    private final int timeoutMillis;
    private Socket socket;
    private BufferedReader in;

    public WitnessClient(String host, int port, Duration timeout) {
        this.host = host;
        this.port = port;
        this.timeoutMillis = (int) Math.max(1, timeout.toMillis());
    }

    /** Asks; a failure to reach the witness is a {@link WitnessAnswer.Refused} saying so. */
    public synchronized WitnessAnswer ask(WitnessRequest r) {
        for (int attempt = 0; attempt < 2; attempt++) { // a kept connection the witness closed: once more, anew
            try {
                if (socket == null) {
                    connect();
                }
                socket.getOutputStream().write((r.encode() + "\n").getBytes(StandardCharsets.US_ASCII));
                String line = in.readLine();
                if (line != null) {
                    return WitnessAnswer.decode(line);
                }
                drop();
            } catch (IOException e) {
                drop();
                if (attempt == 1) {
                    return new WitnessAnswer.Refused("witness " + host + ":" + port + " unreachable: " + e.getMessage());
                }
            }
        }
        return new WitnessAnswer.Refused("witness " + host + ":" + port + " closed the connection");
    }

    private void connect() throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            s.setTcpNoDelay(true);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
        in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
    }

    private void drop() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // gone anyway
            }
        }
        socket = null;
        in = null;
    }

    @Override
    public synchronized void close() {
        drop();
    }
}
