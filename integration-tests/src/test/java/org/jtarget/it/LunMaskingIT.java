package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-initiator LUN masking and read-only mappings ({@code targets[].acl} entries) on the real
 * daemon, seen by real clients: libiscsi's iscsi-ls lists different LUNs for two initiator names,
 * a masked LUN answers LOGICAL UNIT NOT SUPPORTED (05/25/00), and a WRITE through a read-only
 * mapping answers DATA PROTECT / WRITE PROTECTED (07/27/00) with the data left as it was.
 *
 * <p>TCP only (libiscsi has no iSER). When SendTargets listed an iSER portal to TCP discoveries
 * too, iscsi-ls took its address and failed to log in there over TCP; it now lists each
 * transport's own portals only. ACLs and a read-only LU over iSER are covered by {@code PartitionIT}.
 */
class LunMaskingIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String MASKED = "iqn.2026-11.org.jtarget:masked";
    private static final String FULL = "iqn.2026-11.org.jtarget:full";
    private static final int BLOCK = 512;

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension(port -> """
            portals:
              - name: default
                listen: 127.0.0.1:%d
            backstores:
              - { name: ram0, type: memory, size: 4MiB }
              - { name: ram1, type: memory, size: 4MiB }
              - { name: ram2, type: memory, size: 4MiB }
            targets:
              - iqn: %s
                portals: [default]
                luns:
                  - { lun: 0, backstore: ram0 }
                  - { lun: 1, backstore: ram1 }
                  - { lun: 2, backstore: ram2 }
                acl:
                  - { initiator: %s, luns: [0, 2], read-only-luns: [2] }
                  - %s
            """.formatted(port, DaemonConfig.IQN, MASKED, FULL));

    @BeforeAll
    static void clientsInstalled() {
        ClientTool.require("iscsi-ls", "libiscsi-bin");
    }

    @Test
    void iscsiLsShowsEachInitiatorOnlyItsLuns() {
        DaemonProcess daemon = DAEMON.daemon();
        ClientTool.Result masked = ClientTool.runOk(TIMEOUT, daemon::describe,
                "iscsi-ls", "-s", "-i", MASKED, daemon.portalUrl());
        assertThat(masked.stdout()).as(masked.describe())
                .containsPattern("(?m)^Target:" + Pattern.quote(DaemonConfig.IQN))
                .containsPattern("(?m)^Lun:0\\s+Type:DIRECT_ACCESS")
                .containsPattern("(?m)^Lun:2\\s+Type:DIRECT_ACCESS")
                .doesNotContainPattern("(?m)^Lun:1\\b");
        ClientTool.Result full = ClientTool.runOk(TIMEOUT, daemon::describe,
                "iscsi-ls", "-s", "-i", FULL, daemon.portalUrl());
        assertThat(full.stdout()).as(full.describe())
                .containsPattern("(?m)^Lun:0\\s+Type:DIRECT_ACCESS")
                .containsPattern("(?m)^Lun:1\\s+Type:DIRECT_ACCESS")
                .containsPattern("(?m)^Lun:2\\s+Type:DIRECT_ACCESS");
    }

    @Test
    void aMaskedLunIsNotSupportedAndReportLunsDiffers() throws Exception {
        try (RawIscsiClient masked = session(MASKED); RawIscsiClient full = session(FULL)) {
            assertThat(reportLuns(masked)).containsExactly(0, 2);
            assertThat(reportLuns(full)).containsExactly(0, 1, 2);
            ScsiResult tur = masked.testUnitReady(1);
            assertThat(SenseText.of(tur)).as("TEST UNIT READY of masked LUN 1: " + tur).isEqualTo("05/25/00");
            ScsiResult read = masked.read10(1, 0, 1, BLOCK);
            assertThat(SenseText.of(read)).as("READ(10) of masked LUN 1: " + read).isEqualTo("05/25/00");
            assertThat(full.testUnitReadyClearingUnitAttention(1).good()).as("LUN 1 for the other initiator").isTrue();
            assertThat(masked.logout()).isZero();
            assertThat(full.logout()).isZero();
        }
    }

    @Test
    void aWriteThroughAReadOnlyMappingIsDataProtectAndChangesNothing() throws Exception {
        byte[] before = new byte[BLOCK];
        Arrays.fill(before, (byte) 0x5A);
        byte[] attempt = new byte[BLOCK];
        Arrays.fill(attempt, (byte) 0xC3);
        try (RawIscsiClient masked = session(MASKED); RawIscsiClient full = session(FULL)) {
            assertThat(full.testUnitReadyClearingUnitAttention(2).good()).isTrue();
            assertThat(full.write10(2, 7, before, BLOCK).good()).as("the other initiator may write LUN 2").isTrue();

            assertThat(masked.testUnitReadyClearingUnitAttention(2).good()).isTrue();
            ScsiResult w = masked.write10(2, 7, attempt, BLOCK);
            assertThat(SenseText.of(w)).as("WRITE(10) through the read-only mapping: " + w).isEqualTo("07/27/00");

            ScsiResult r = masked.read10(2, 7, 1, BLOCK);
            assertThat(r.good()).as("READ(10) through the read-only mapping: " + r).isTrue();
            assertThat(r.data()).as("block 7 of LUN 2 unchanged").isEqualTo(before);
            assertThat(full.read10(2, 7, 1, BLOCK).data()).isEqualTo(before);
            assertThat(masked.write10(0, 7, attempt, BLOCK).good()).as("LUN 0 is mapped writable").isTrue();
            assertThat(masked.logout()).isZero();
            assertThat(full.logout()).isZero();
        }
    }

    private static RawIscsiClient session(String initiator) throws IOException {
        DaemonProcess daemon = DAEMON.daemon();
        RawIscsiClient c = RawIscsiClient.connect(DaemonProcess.HOST, daemon.port(), TIMEOUT);
        LoginResult login = c.login(initiator, DaemonConfig.IQN);
        assertThat(login.succeeded()).as(login + "\n" + daemon.describe()).isTrue();
        return c;
    }

    /** REPORT LUNS (SPC-4 6.33, SELECT REPORT 0) through LUN 0. */
    private static List<Integer> reportLuns(RawIscsiClient c) throws IOException {
        ScsiResult r = c.execute(0, ScsiCdbs.reportLuns(1024), 1024);
        assertThat(r.good()).as("REPORT LUNS: " + r).isTrue();
        ByteBuffer b = ByteBuffer.wrap(r.data());
        List<Integer> luns = new ArrayList<>();
        for (int i = 0; i < b.getInt(0) / 8; i++) {
            luns.add(b.getShort(8 + 8 * i) & 0x3FFF);
        }
        return luns;
    }
}
