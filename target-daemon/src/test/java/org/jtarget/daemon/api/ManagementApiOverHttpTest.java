package org.jtarget.daemon.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API on the TCP management listener: served only with a token file, only to requests bearing
 * that token; without one the listener serves {@code /metrics} alone.
 */
class ManagementApiOverHttpTest {

    private static final String TOKEN = "a-long-random-api-token";

    @TempDir
    Path dir;

    private RunningDaemon daemon;
    private int http;

    private void start(String management) throws Exception {
        http = RunningDaemon.freePort();
        Files.writeString(dir.resolve("api-token"), TOKEN + "\n");
        daemon = RunningDaemon.start(dir.resolve("jtarget.yaml"), ManagementApiTest.yaml(RunningDaemon.freePort(),
                dir.resolve("api.sock"), "").replaceAll("management: .*\n", "")
                + "management: " + management.formatted(http) + "\n");
    }

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void theApiAnswersOnlyTheToken() throws Exception {
        start("{ http: \"127.0.0.1:%d\", token-file: api-token }");
        ApiClient.Response ok = ApiClient.tcp("127.0.0.1", http, TOKEN).get("daemon");
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(new ObjectMapper().readTree(ok.body()).get("state").asText()).isEqualTo("running");

        for (String wrong : new String[] {null, "a-long-random-api-tokeN", ""}) {
            ApiClient.Response refused = ApiClient.tcp("127.0.0.1", http, wrong).get("daemon");
            assertThat(refused.status()).as(wrong).isEqualTo(401);
            assertThat(new ObjectMapper().readTree(refused.body()).get("code").asText()).isEqualTo("unauthorized");
        }
        assertThat(ApiClient.tcp("127.0.0.1", http, TOKEN).get("/metrics").status()).as("metrics: false")
                .isEqualTo(404);
    }

    @Test
    void withoutATokenFileOnlyMetricsIsServed() throws Exception {
        start("{ http: \"127.0.0.1:%d\", metrics: true }");
        assertThat(ApiClient.tcp("127.0.0.1", http, null).get("/metrics").body()).contains("jtarget_lu_commands");
        assertThat(ApiClient.tcp("127.0.0.1", http, TOKEN).get("daemon").status()).isEqualTo(404);
        assertThat(daemon.api).as("neither socket nor token: no API").isNull();
    }

    @Test
    void afterTheApiClosesTheListenerSaysItIsNotRunning() throws Exception {
        start("{ http: \"127.0.0.1:%d\", metrics: true, token-file: api-token }");
        daemon.closeApi();
        ApiClient.Response closed = ApiClient.tcp("127.0.0.1", http, TOKEN).get("daemon");
        assertThat(closed.status()).isEqualTo(503);
        assertThat(ApiClient.tcp("127.0.0.1", http, null).get("/metrics").status()).isEqualTo(200);
    }
}
