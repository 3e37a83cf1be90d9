package org.jtarget.daemon.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.jtarget.fabric.iscsi.session.SessionRegistry.PortalTraffic;
import org.jtarget.fabric.iscsi.session.SessionRegistry.SessionTraffic;
import org.jtarget.fabric.srp.SrpFabric.ChannelTraffic;
import org.jtarget.ha.PairNode;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HA node's state and the per-session and per-portal counters as the metrics endpoint writes
 * them (the LU and login metrics: MetricsIT).
 */
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
        String text = scrape(new JtargetCollector(() -> null, () -> null, () -> null, () -> n, () -> null));
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
        assertThat(scrape(new JtargetCollector(() -> null, () -> null, () -> null, null, null))).doesNotContain("jtarget_ha_");
        assertThat(scrape(new JtargetCollector(() -> null, () -> null, () -> null, () -> null, () -> null))).doesNotContain("jtarget_ha_");
    }

    private static String scrapeTraffic(List<SessionTraffic> sessions, List<PortalTraffic> portals) throws Exception {
        return scrapeTraffic(sessions, List.of(), portals);
    }

    private static String scrapeTraffic(List<SessionTraffic> sessions, List<ChannelTraffic> channels,
                                        List<PortalTraffic> portals) throws Exception {
        MetricSnapshots.Builder all = MetricSnapshots.builder();
        JtargetCollector.addTraffic(all, sessions, channels, portals);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, all.build());
        return out.toString(StandardCharsets.UTF_8);
    }

    /** A READ(10) of 4 KiB and a WRITE(10) of 8 KiB ending GOOD, and a TEST UNIT READY ending CHECK CONDITION. */
    private static TransferCounters countersOfThreeCommands() {
        TransferCounters c = new TransferCounters();
        ScsiCommand cmd = new ScsiCommand();
        cmd.cdb(new byte[] {0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0}, 0, 10);
        c.record(cmd, 4096);
        cmd.cdb(new byte[] {0x2a, 0, 0, 0, 0, 0, 0, 0, 16, 0}, 0, 10);
        c.record(cmd, 8192);
        cmd.cdb(new byte[] {0, 0, 0, 0, 0, 0}, 0, 6);
        cmd.status(ScsiStatus.CHECK_CONDITION);
        c.record(cmd, 0);
        return c;
    }

    @Test
    void eachSessionAndPortalHasItsCommandsBytesAndFailures() throws Exception {
        TransferCounters c = countersOfThreeCommands();
        String text = scrapeTraffic(List.of(new SessionTraffic("iqn.t", "iqn.i", 0x23d000000001L, 5, "fast", c)),
                List.of(new PortalTraffic("fast", "iser", c)));
        String session = "initiator=\"iqn.i\",isid=\"0x23d000000001\",";
        assertThat(text)
                .contains("jtarget_iscsi_session_commands_total{" + session + "op=\"read\",portal=\"fast\",target=\"iqn.t\",tsih=\"5\"} 1.0")
                .contains("jtarget_iscsi_session_commands_total{" + session + "op=\"other\",portal=\"fast\",target=\"iqn.t\",tsih=\"5\"} 1.0")
                .contains("jtarget_iscsi_session_data_bytes_total{" + session + "op=\"write\",portal=\"fast\",target=\"iqn.t\",tsih=\"5\"} 8192.0")
                .contains("jtarget_iscsi_session_failed_commands_total{" + session + "portal=\"fast\",target=\"iqn.t\",tsih=\"5\"} 1.0")
                .contains("jtarget_portal_commands_total{op=\"write\",portal=\"fast\",transport=\"iser\"} 1.0")
                .contains("jtarget_portal_data_bytes_total{op=\"read\",portal=\"fast\",transport=\"iser\"} 4096.0")
                .contains("jtarget_portal_failed_commands_total{portal=\"fast\",transport=\"iser\"} 1.0");
    }

    @Test
    void anEndedSessionLeavesNoSeriesWhileItsPortalKeepsCounting() throws Exception {
        TransferCounters c = countersOfThreeCommands();
        String text = scrapeTraffic(List.of(), List.of(new PortalTraffic("p", "tcp", c)));
        assertThat(text).doesNotContain("jtarget_iscsi_session_commands_total{")
                .contains("jtarget_portal_commands_total{op=\"read\",portal=\"p\",transport=\"tcp\"} 1.0");
    }

    @Test
    void anSrpChannelHasItsOwnSeriesAndItsPortalIsAnSrpOne() throws Exception {
        TransferCounters c = countersOfThreeCommands();
        String text = scrapeTraffic(List.of(), List.of(new ChannelTraffic("iqn.t", "0x00000000000000010000000000000002",
                "srp", new java.net.InetSocketAddress("127.0.0.1", 40000), c)), List.of(new PortalTraffic("srp", "srp", c)));
        String channel = "initiator_port=\"0x00000000000000010000000000000002\",";
        assertThat(text)
                .contains("jtarget_srp_channel_commands_total{" + channel + "op=\"read\",peer=\"127.0.0.1:40000\",portal=\"srp\",target=\"iqn.t\"} 1.0")
                .contains("jtarget_srp_channel_data_bytes_total{" + channel + "op=\"write\",peer=\"127.0.0.1:40000\",portal=\"srp\",target=\"iqn.t\"} 8192.0")
                .contains("jtarget_srp_channel_failed_commands_total{" + channel + "peer=\"127.0.0.1:40000\",portal=\"srp\",target=\"iqn.t\"} 1.0")
                .contains("jtarget_portal_data_bytes_total{op=\"read\",portal=\"srp\",transport=\"srp\"} 4096.0");
        assertThat(scrapeTraffic(List.of(), List.of(), List.of())).as("no SRP channel: no family")
                .doesNotContain("jtarget_srp_channel");
    }
}
