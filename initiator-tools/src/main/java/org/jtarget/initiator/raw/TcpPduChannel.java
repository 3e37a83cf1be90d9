package org.jtarget.initiator.raw;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/** PDUs over one TCP connection (RFC 7143): each PDU's wire bytes, digests included, in a buffered stream. */
public final class TcpPduChannel implements PduChannel {

    private static final int BUFFER_BYTES = 65536;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private TcpPduChannel(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), BUFFER_BYTES);
        this.out = new BufferedOutputStream(socket.getOutputStream(), BUFFER_BYTES);
    }

    /** Connects within {@code timeout}; reads time out after {@code timeout} too. */
    public static TcpPduChannel connect(String host, int port, Duration timeout) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            s.setSoTimeout((int) timeout.toMillis());
            return new TcpPduChannel(s);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public void send(RawPdu pdu, boolean headerDigest, boolean dataDigest, IscsiDigest.Kind corrupt)
            throws IOException {
        sendBytes(pdu.toBytes(headerDigest, dataDigest, corrupt));
    }

    @Override
    public void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    @Override
    public RawPdu read(int maxDataSegmentLength, boolean headerDigest, boolean dataDigest) throws IOException {
        return PduReader.read(in, maxDataSegmentLength, headerDigest, dataDigest);
    }

    @Override
    public void readTimeout(Duration timeout) throws IOException {
        socket.setSoTimeout((int) timeout.toMillis());
    }

    @Override
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public boolean isOpen() {
        return !socket.isClosed();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
