package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} (README "Metrics"): scraped before and after a known workload on LUN 0 (N
 * READs and M WRITEs of known sizes, one READ past the end, one write to a read-only LUN), the
 * counters moved by exactly that: commands, bytes, the latency histograms' counts, and the
 * failures by sense key; the session shows while it is open, and the login counters count it and
 * a login to a target that does not exist. Sessions over TCP and iSER and an SRP channel count
 * exactly their own workloads, each portal (tcp, iser, srp) exactly those through it, and a
 * session's series go when it logs out. A SANITIZE paced to a slow
 * rate shows in {@code jtargetctl status} rising while it runs.
 */
class MetricsIT {

    private static final int READS = 37;
    private static final int WRITES = 23;
    private static final int READ_BLOCKS = 8;
    private static final int WRITE_BLOCKS = 16;
    private static final int BLOCK = 512;
    private static final String IQN = DaemonConfig.IQN;

    @TempDir
    Path dir;

    @Test
    void aKnownWorkloadMovesTheCountersByExactlyItself() throws Exception {
        int port = DaemonProcess.freePort();
        int http = DaemonProcess.freePort();
        String yaml = DaemonConfig.standard(port).toYaml().replace("read-only: false", "read-only: true")
                + "management: { http: \"127.0.0.1:" + http + "\", metrics: true }\n";
        try (DaemonProcess daemon = DaemonProcess.start(DaemonConfig.write(dir, yaml), port)) {
            workload(port, http);
        }
    }

    private static void workload(int port, int http) throws Exception {
        String before = scrape(http);
        assertThat(before).contains("# TYPE jtarget_lu_commands_total counter")
                .contains("# TYPE jtarget_lu_latency_seconds histogram")
                .contains("jtarget_pinned_arena_size_bytes");

        try (ScsiClient c = ScsiTransport.TCP.login(port, "iqn.2026-11.org.jtarget:metrics", Duration.ofSeconds(10))) {
            c.testUnitReadyClearingUnitAttention(0);
            c.testUnitReadyClearingUnitAttention(1);
            String start = scrape(http);
            writes(c);
            reads(c, READS);
            ScsiResult pastTheEnd = c.read10(0, 384L * 2048, 1, BLOCK);
            assertThat(pastTheEnd.senseKey()).as("READ past the end").isEqualTo(0x5);
            ScsiResult readOnly = c.write10(1, 0, new byte[BLOCK], BLOCK);
            assertThat(readOnly.senseKey()).as("WRITE to the read-only LUN 1").isEqualTo(0x7);
            String end = scrape(http);

            String lun0 = "lun=\"0\",op=\"%s\",target=\"" + IQN + "\"";
            assertThat(delta(start, end, "jtarget_lu_commands_total{" + lun0.formatted("read") + "}"))
                    .isEqualTo(READS + 1);
            assertThat(delta(start, end, "jtarget_lu_commands_total{" + lun0.formatted("write") + "}")).isEqualTo(WRITES);
            assertThat(delta(start, end, "jtarget_lu_data_bytes_total{" + lun0.formatted("read") + "}"))
                    .isEqualTo((long) READS * READ_BLOCKS * BLOCK);
            assertThat(delta(start, end, "jtarget_lu_data_bytes_total{" + lun0.formatted("write") + "}"))
                    .isEqualTo((long) WRITES * WRITE_BLOCKS * BLOCK);
            assertThat(delta(start, end, "jtarget_lu_latency_seconds_count{" + lun0.formatted("read") + "}"))
                    .as("GOOD READs only").isEqualTo(READS);
            assertThat(delta(start, end, "jtarget_lu_latency_seconds_bucket{" + lun0.formatted("write") + ",le=\"+Inf\"}"))
                    .isEqualTo(WRITES);
            assertThat(value(end, "jtarget_lu_failed_commands_total{lun=\"0\",sense_key=\"illegal_request\","
                    + "status=\"check_condition\",target=\"" + IQN + "\"}")).isEqualTo(1);
            assertThat(value(end, "jtarget_lu_failed_commands_total{lun=\"1\",sense_key=\"data_protect\","
                    + "status=\"check_condition\",target=\"" + IQN + "\"}")).isEqualTo(1);
            assertThat(value(end, "jtarget_iscsi_sessions{target=\"" + IQN + "\"}")).as("this session").isEqualTo(1);
        }
        try (RawIscsiClient stranger = RawIscsiClient.connect(DaemonProcess.HOST, port, Duration.ofSeconds(10))) {
            LoginResult refused = stranger.login("iqn.2026-11.org.jtarget:metrics", IQN + "-nowhere");
            assertThat(refused.statusClass() << 8 | refused.statusDetail()).as("target not found").isEqualTo(0x0203);
        }
        String last = scrape(http);
        assertThat(value(last, "jtarget_iscsi_logins_total{result=\"accepted\",session_type=\"normal\","
                + "status=\"0x0000\"}")).isEqualTo(1);
        assertThat(value(last, "jtarget_iscsi_logins_total{result=\"refused\",session_type=\"\",status=\"0x0203\"}"))
                .isEqualTo(1);
    }

    private static final String SESSION_A = "iqn.2026-11.org.jtarget:metrics-a";
    private static final String SESSION_B = "iqn.2026-11.org.jtarget:metrics-b";
    private static final String SESSION_C = "iqn.2026-11.org.jtarget:metrics-c";
    private static final int SRP_READS = 5;

    @Test
    void eachSessionChannelAndPortalCountExactlyTheirOwnWorkload() throws Exception {
        int port = DaemonProcess.freePort();
        int iserPort = DaemonProcess.freePort();
        int srpPort = DaemonProcess.freePort();
        int http = DaemonProcess.freePort();
        String yaml = DaemonConfig.standard(port).withIserPortal(iserPort).withSrpPortal(srpPort).toYaml()
                + "management: { http: \"127.0.0.1:" + http + "\", metrics: true }\n";
        try (DaemonProcess daemon = DaemonProcess.start(DaemonConfig.write(dir, yaml), port)) {
            String tcp = "portal=\"default\",transport=\"tcp\"";
            String iser = "portal=\"rdma\",transport=\"iser\"";
            String srp = "portal=\"srp\",transport=\"srp\"";
            try (ScsiClient b = ScsiTransport.ISER.login(iserPort, SESSION_B, Duration.ofSeconds(10));
                 ScsiClient c = ScsiTransport.SRP.login(srpPort, SESSION_C, Duration.ofSeconds(10))) {
                b.testUnitReadyClearingUnitAttention(0);
                c.testUnitReadyClearingUnitAttention(0);
                try (ScsiClient a = ScsiTransport.TCP.login(port, SESSION_A, Duration.ofSeconds(10))) {
                    a.testUnitReadyClearingUnitAttention(0);
                    String start = scrape(http);
                    writes(a);
                    reads(b, READS);
                    assertThat(b.read10(0, 384L * 2048, 1, BLOCK).senseKey()).as("READ past the end").isEqualTo(0x5);
                    reads(c, SRP_READS);
                    String end = scrape(http);

                    assertThat(sessionValue(end, "jtarget_iscsi_session_commands_total", SESSION_A, "default", "write"))
                            .isEqualTo(WRITES);
                    assertThat(sessionValue(end, "jtarget_iscsi_session_data_bytes_total", SESSION_A, "default", "write"))
                            .isEqualTo((long) WRITES * WRITE_BLOCKS * BLOCK);
                    assertThat(sessionValue(end, "jtarget_iscsi_session_commands_total", SESSION_A, "default", "read"))
                            .isZero();
                    assertThat(sessionValue(end, "jtarget_iscsi_session_commands_total", SESSION_B, "rdma", "read"))
                            .isEqualTo(READS + 1);
                    assertThat(sessionValue(end, "jtarget_iscsi_session_data_bytes_total", SESSION_B, "rdma", "read"))
                            .isEqualTo((long) READS * READ_BLOCKS * BLOCK);
                    assertThat(sessionValue(end, "jtarget_iscsi_session_failed_commands_total", SESSION_B, "rdma", null)
                            - sessionValue(start, "jtarget_iscsi_session_failed_commands_total", SESSION_B, "rdma", null))
                            .as("the READ past the end").isEqualTo(1);
                    assertThat(channelValue(end, "jtarget_srp_channel_data_bytes_total", "read"))
                            .isEqualTo((long) SRP_READS * READ_BLOCKS * BLOCK);
                    assertThat(delta(start, end, "jtarget_portal_data_bytes_total{op=\"write\"," + tcp + "}"))
                            .isEqualTo((long) WRITES * WRITE_BLOCKS * BLOCK);
                    assertThat(delta(start, end, "jtarget_portal_data_bytes_total{op=\"read\"," + tcp + "}")).isZero();
                    assertThat(delta(start, end, "jtarget_portal_data_bytes_total{op=\"read\"," + iser + "}"))
                            .isEqualTo((long) READS * READ_BLOCKS * BLOCK);
                    assertThat(delta(start, end, "jtarget_portal_commands_total{op=\"read\"," + iser + "}"))
                            .isEqualTo(READS + 1);
                    assertThat(delta(start, end, "jtarget_portal_failed_commands_total{" + iser + "}")).isEqualTo(1);
                    assertThat(delta(start, end, "jtarget_portal_data_bytes_total{op=\"read\"," + srp + "}"))
                            .isEqualTo((long) SRP_READS * READ_BLOCKS * BLOCK);
                }
                daemon.await("session A's series to go after its logout",
                        () -> !scrapeQuietly(http).contains("initiator=\"" + SESSION_A + "\""), Duration.ofSeconds(10));
                String after = scrape(http);
                assertThat(sessionValue(after, "jtarget_iscsi_session_commands_total", SESSION_B, "rdma", "read"))
                        .as("the other session stays").isEqualTo(READS + 1);
                assertThat(value(after, "jtarget_portal_data_bytes_total{op=\"write\"," + tcp + "}"))
                        .as("the portal keeps what the ended session carried")
                        .isGreaterThanOrEqualTo((long) WRITES * WRITE_BLOCKS * BLOCK);
            }
        }
    }

    @Test
    void aSlowSanitizeShowsItsProgressRisingInJtargetctlStatus() throws Exception {
        int port = DaemonProcess.freePort();
        Path socket = dir.resolve("jtarget.sock");
        // LUN 0: 32 MiB of memory overwritten at 2 MiB/s, 1 MiB at a time: about 16 s, time for a few
        // jtargetctl runs on a busy host
        String yaml = "daemon: { sanitize-rate: 2MiB }\n"
                + new DaemonConfig(port, 0, 0, 32 * DaemonConfig.MIB, 64 * DaemonConfig.MIB, "data/file0.img").toYaml()
                + "management: { socket: " + socket + " }\n";
        try (DaemonProcess daemon = DaemonProcess.start(DaemonConfig.write(dir, yaml), port);
             ScsiClient c = ScsiTransport.TCP.login(port, SESSION_A, Duration.ofSeconds(10))) {
            daemon.await("the management socket", () -> daemon.log().contains("management API on unix:"),
                    Duration.ofSeconds(10));
            c.testUnitReadyClearingUnitAttention(0);
            byte[] overwriteImmed = {0x48, (byte) 0x81, 0, 0, 0, 0, 0, 0, 8, 0};
            byte[] onePass = {0x01, 0, 0, 4, 0x5A, 0x5A, 0x5A, 0x5A};
            assertThat(c.execute(0, overwriteImmed, onePass).good()).isTrue();
            double first = statusPercent(socket, daemon, 0);
            assertThat(statusPercent(socket, daemon, first)).as("rising while it runs").isGreaterThan(first);
        }
    }

    /** Runs {@code jtargetctl status} until its work line for LUN 0 reads above {@code above} percent. */
    private static double statusPercent(Path socket, DaemonProcess daemon, double above) throws Exception {
        Pattern work = Pattern.compile("work:    sanitize-overwrite of " + Pattern.quote(IQN)
                + " LUN 0: (\\d+\\.\\d)% of 32\\.0MiB, [\\d.]+[KM]iB/s, \\d+s left");
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            ClientTool.Result r = ClientTool.jtargetctl(socket, Duration.ofSeconds(60), () -> daemon.logTail(40), "status");
            assertThat(r.exitCode()).as(r.describe()).isZero();
            last = r.stdout();
            Matcher m = work.matcher(last);
            if (m.find() && Double.parseDouble(m.group(1)) > above) {
                return Double.parseDouble(m.group(1));
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no sanitize above " + above + "% in jtargetctl status:\n" + last);
    }

    /**
     * A series of one session, found by its initiator and portal (its ISID and TSIH whatever they
     * are); {@code op} null for the failures, which have none.
     */
    private static long sessionValue(String scrape, String family, String initiator, String portal, String op) {
        String series = Pattern.quote(family + "{initiator=\"" + initiator + "\",isid=\"") + "0x[0-9a-f]{12}\""
                + Pattern.quote(op == null ? "" : ",op=\"" + op + "\"")
                + Pattern.quote(",portal=\"" + portal + "\",target=\"" + IQN + "\",tsih=\"") + "\\d+\"\\}";
        return firstValue(scrape, series, family + " of " + initiator);
    }

    /** A series of the one SRP channel (its initiator port and address whatever they are). */
    private static long channelValue(String scrape, String family, String op) {
        String series = Pattern.quote(family + "{initiator_port=\"") + "0x[0-9a-fA-F]{32}"
                + Pattern.quote("\",op=\"" + op + "\",peer=\"127.0.0.1:") + "\\d+"
                + Pattern.quote("\",portal=\"srp\",target=\"" + IQN + "\"}");
        return firstValue(scrape, series, family);
    }

    private static long firstValue(String scrape, String seriesPattern, String what) {
        Matcher m = Pattern.compile("(?m)^" + seriesPattern + " (\\S+)$").matcher(scrape);
        assertThat(m.find()).as(what + " in\n" + scrape).isTrue();
        return (long) Double.parseDouble(m.group(1));
    }

    /** {@link #WRITES} WRITE(10)s of {@link #WRITE_BLOCKS} blocks on LUN 0, one after the other; each GOOD. */
    private static void writes(ScsiClient c) throws Exception {
        byte[] data = new byte[WRITE_BLOCKS * BLOCK];
        for (int i = 0; i < WRITES; i++) {
            assertThat(c.write10(0, i * WRITE_BLOCKS, data, BLOCK).good()).isTrue();
        }
    }

    /** {@code n} READ(10)s of {@link #READ_BLOCKS} blocks on LUN 0, one after the other; each GOOD. */
    private static void reads(ScsiClient c, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            assertThat(c.read10(0, i * READ_BLOCKS, READ_BLOCKS, BLOCK).good()).isTrue();
        }
    }

    private static String scrapeQuietly(int port) {
        try {
            return scrape(port);
        } catch (Exception e) {
            return "";
        }
    }

    private static String scrape(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    private static long delta(String before, String after, String series) {
        return value(after, series) - value(before, series);
    }

    /** The value of one series (its name and labels exactly as exposed), failing with the scrape when absent. */
    private static long value(String scrape, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
        assertThat(m.find()).as(series + " in\n" + scrape).isTrue();
        return (long) Double.parseDouble(m.group(1));
    }
}
