package org.jtarget.daemon.metrics;

import org.jtarget.config.ManagementConfig;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class MetricsEndpointTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void withAMetricsTokenOnlyScrapesBearingItAreAnswered() throws Exception {
        int port = freePort();
        ManagementConfig config = new ManagementConfig("127.0.0.1", port, true, null, null, "scrape-token");
        try (MetricsEndpoint ignored = MetricsEndpoint.start(config, "test.yaml", emptyCollector(), null)) {
            HttpResponse<String> none = get(port, null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            assertThat(none.body()).contains("management.metrics-token-file");
            assertThat(get(port, "Bearer wrong-token").statusCode()).isEqualTo(401);
            HttpResponse<String> right = get(port, "Bearer scrape-token");
            assertThat(right.statusCode()).isEqualTo(200);
            assertThat(right.headers().firstValue("Content-Type")).as("the exposition format, not the refusal")
                    .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain; version="));
        }
    }

    @Test
    void withoutOneAnyoneReachingTheListenerMayScrape() throws Exception {
        int port = freePort();
        try (MetricsEndpoint ignored = MetricsEndpoint.start(new ManagementConfig("127.0.0.1", port, true), "test.yaml",
                emptyCollector(), null)) {
            assertThat(get(port, null).statusCode()).isEqualTo(200);
        }
    }

    private static JtargetCollector emptyCollector() {
        return new JtargetCollector(() -> null, () -> null, () -> null, null, null);
    }

    private static HttpResponse<String> get(int port, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
