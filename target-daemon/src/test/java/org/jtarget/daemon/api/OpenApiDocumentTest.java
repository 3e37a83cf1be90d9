package org.jtarget.daemon.api;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checked-in OpenAPI document and the server's routes are the same set: every route served is
 * documented, every documented operation is served.
 */
class OpenApiDocumentTest {

    @Test
    void everyRouteIsDocumentedAndEveryDocumentedOperationServed() {
        Set<String> served = new TreeSet<>();
        try (ManagementApi api = new ManagementApi(new ManagedDaemon(null, Path.of("/x.yaml"), Instant.now(), () -> null))) {
            for (ManagementApi.Route r : api.routes()) {
                served.add(r.method() + " " + r.template().substring(ManagementApi.BASE.length()));
            }
        }
        assertThat(documented()).isEqualTo(served);
    }

    @Test
    void theDocumentIsOpenApi3ServedUnderTheApiBase() {
        Map<String, Object> doc = new Yaml().load(new ByteArrayInputStream(ManagementApi.openApiDocument()));
        assertThat(String.valueOf(doc.get("openapi"))).startsWith("3.");
        assertThat(doc.get("servers").toString()).contains("url=" + ManagementApi.BASE);
    }

    /** "METHOD /path" for each operation of the document's paths. */
    @SuppressWarnings("unchecked")
    private static Set<String> documented() {
        Map<String, Object> doc = new Yaml().load(new ByteArrayInputStream(ManagementApi.openApiDocument()));
        Set<String> operations = new TreeSet<>();
        ((Map<String, Map<String, Object>>) doc.get("paths")).forEach((path, item) -> item.keySet().stream()
                .filter(k -> Set.of("get", "put", "post", "delete", "patch").contains(k))
                .forEach(method -> operations.add(method.toUpperCase(Locale.ROOT) + " " + path)));
        return operations;
    }
}
