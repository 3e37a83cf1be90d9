package org.jtarget.daemon.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The smallest HTTP/1.1 client the API needs ({@code jtargetctl}, tests): one request per
 * connection ({@code Connection: close}), over the Unix socket or TCP, the whole answer read until
 * the daemon closes. The JDK's HttpClient speaks no Unix sockets.
 */
public final class ApiClient {

    /** An answer: the HTTP status and the body as text. */
    public record Response(int status, String body) {

        public boolean ok() {
            return status / 100 == 2;
        }
    }

    private final SocketAddress address;
    private final String token;

    private ApiClient(SocketAddress address, String token) {
        this.address = address;
        this.token = token;
    }

    /** A client of the API on the Unix socket {@code socket}. */
    public static ApiClient unix(Path socket) {
        return new ApiClient(UnixDomainSocketAddress.of(socket), null);
    }

    /** A client of the API on the TCP listener, sending {@code token} as the bearer token. */
    public static ApiClient tcp(String host, int port, String token) {
        return new ApiClient(new InetSocketAddress(host, port), token);
    }

    public Response get(String path) throws IOException {
        return send("GET", path, null);
    }

    /**
     * Sends one request to {@code path} (under {@link ManagementApi#BASE} when relative) and
     * reads the answer.
     */
    public Response send(String method, String path, String jsonBody) throws IOException {
        String target = path.startsWith("/") ? path : ManagementApi.BASE + "/" + path;
        byte[] body = jsonBody == null ? new byte[0] : jsonBody.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder().append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: localhost\r\nConnection: close\r\nAccept: application/json\r\n")
                .append("Content-Length: ").append(body.length).append("\r\n");
        if (jsonBody != null) {
            head.append("Content-Type: application/json\r\n");
        }
        if (token != null) {
            head.append("Authorization: Bearer ").append(token).append("\r\n");
        }
        head.append("\r\n");
        try (SocketChannel channel = SocketChannel.open(address instanceof UnixDomainSocketAddress
                ? StandardProtocolFamily.UNIX : ((InetSocketAddress) address).getAddress() instanceof java.net.Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET)) {
            channel.connect(address);
            writeFully(channel, ByteBuffer.wrap(head.toString().getBytes(StandardCharsets.US_ASCII)));
            writeFully(channel, ByteBuffer.wrap(body));
            return parse(readToEnd(channel));
        }
    }

    private static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private static byte[] readToEnd(SocketChannel channel) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        ByteBuffer buffer = ByteBuffer.allocate(8192);
        while (channel.read(buffer) >= 0) {
            all.write(buffer.array(), 0, buffer.position());
            buffer.clear();
        }
        return all.toByteArray();
    }

    /** Status line, headers, body: the body is what follows the blank line (the daemon closes after it). */
    static Response parse(byte[] raw) throws IOException {
        String text = new String(raw, StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        String[] statusLine = (end < 0 ? text : text.substring(0, end)).split("\r\n", 2)[0].split(" ", 3);
        if (end < 0 || statusLine.length < 2 || !statusLine[0].toUpperCase(Locale.ROOT).startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP answer: " + (text.length() > 80 ? text.substring(0, 80) : text));
        }
        try {
            return new Response(Integer.parseInt(statusLine[1]), text.substring(end + 4));
        } catch (NumberFormatException e) {
            throw new IOException("bad HTTP status line: " + String.join(" ", statusLine));
        }
    }
}
