package org.jtarget.daemon.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import org.jtarget.ha.PairNode;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The HA node's state as the metrics endpoint writes it (the LU and login metrics: MetricsIT). */
class JtargetCollectorTest {

    private static String scrape(JtargetCollector c) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, c.collect());
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aDegradedPrimaryShowsItsRoleAndWhatItsPeerLacks() throws Exception {
        PairNode.Snapshot n = new PairNode.Snapshot("a", "b", PairNode.Role.PRIMARY, null, true, false, false, 7, -1,
                List.of(new PairNode.StoreSnapshot("disk", true, 4L << 20, 3)));
        String text = scrape(new JtargetCollector(() -> null, () -> null, () -> null, () -> n));
        assertThat(text)
                .contains("jtarget_ha_role{node=\"a\",peer=\"b\",role=\"primary\"} 1.0")
                .contains("jtarget_ha_role{node=\"a\",peer=\"b\",role=\"secondary\"} 0.0")
                .contains("jtarget_ha_peer_connected{node=\"a\",peer=\"b\"} 0.0")
                .contains("jtarget_ha_degraded{node=\"a\",peer=\"b\"} 1.0")
                .contains("jtarget_ha_generation{node=\"a\",peer=\"b\"} 7.0")
                .contains("jtarget_ha_changed_bytes{backstore=\"disk\",node=\"a\",peer=\"b\"} 4194304.0")
                .contains("jtarget_ha_changes_in_flight{backstore=\"disk\",node=\"a\",peer=\"b\"} 3.0")
                .contains("jtarget_ha_copy_whole{backstore=\"disk\",node=\"a\",peer=\"b\"} 1.0")
                .doesNotContain("jtarget_ha_last_resync_bytes");
    }

    @Test
    void aDaemonWithoutHaWritesNoHaMetrics() throws Exception {
        assertThat(scrape(new JtargetCollector(() -> null, () -> null, () -> null, null))).doesNotContain("jtarget_ha_");
        assertThat(scrape(new JtargetCollector(() -> null, () -> null, () -> null, () -> null))).doesNotContain("jtarget_ha_");
    }
}
