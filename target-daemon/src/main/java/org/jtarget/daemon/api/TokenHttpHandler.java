package org.jtarget.daemon.api;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The API on the TCP management listener: only for requests with {@code Authorization: Bearer
 * TOKEN} ({@code management.token-file}); anything else is 401 before any route runs. It runs on
 * the listener's own thread, which waits for the answer (never an event loop).
 */
final class TokenHttpHandler implements HttpHandler {

    private final ManagementApi api;
    private final byte[] expected;

    TokenHttpHandler(ManagementApi api, String token) {
        this.api = api;
        this.expected = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            ApiResponse answer = authorized(exchange)
                    ? api.handle(new ApiRequest(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), body)).join()
                    : api.error(new ApiException(401, "unauthorized",
                            "Authorization: Bearer TOKEN missing or wrong (the token is management.token-file's)"));
            if (answer.status() == 401) {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            }
            exchange.getResponseHeaders().set("Content-Type", answer.contentType());
            exchange.sendResponseHeaders(answer.status(), answer.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer.body());
            }
        }
    }

    /** Compared in constant time: how long a refusal takes tells nothing of the token. */
    private boolean authorized(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        return header != null && MessageDigest.isEqual(header.getBytes(StandardCharsets.UTF_8), expected);
    }
}
