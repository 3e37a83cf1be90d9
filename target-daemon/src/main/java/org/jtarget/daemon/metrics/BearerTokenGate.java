package org.jtarget.daemon.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Lets a request through to {@code next} only with {@code Authorization: Bearer TOKEN} (RFC 6750,
 * what Prometheus sends with {@code authorization: { credentials_file: ... }}); anything else is
 * 401 with {@code WWW-Authenticate: Bearer} and a plain-text line saying what is missing.
 */
final class BearerTokenGate implements HttpHandler {

    private static final byte[] REFUSAL = ("Authorization: Bearer TOKEN missing or wrong "
            + "(the token is management.metrics-token-file's)\n").getBytes(StandardCharsets.UTF_8);

    private final byte[] expected;
    private final HttpHandler next;

    BearerTokenGate(String token, HttpHandler next) {
        this.expected = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
        this.next = next;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        // constant time: how long a refusal takes tells nothing of the token
        if (header != null && MessageDigest.isEqual(header.getBytes(StandardCharsets.UTF_8), expected)) {
            next.handle(exchange);
            return;
        }
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(401, REFUSAL.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(REFUSAL);
            }
        }
    }
}
