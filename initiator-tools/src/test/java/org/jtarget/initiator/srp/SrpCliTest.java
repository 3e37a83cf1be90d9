package org.jtarget.initiator.srp;

import static org.assertj.core.api.Assertions.assertThat;

import org.jtarget.fabric.srp.iu.SrpLoginReject;
import org.jtarget.initiator.cli.CliArguments;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.CliRun;
import org.jtarget.initiator.cli.TransportCliTest;
import org.junit.jupiter.api.Test;

/**
 * {@code jtarget-initiator ... srp://} against the daemon's runtime in this process, with a TCP
 * portal and an SRP portal on one memory LUN: every command works over SRP, and what one transport
 * wrote the other reads back ({@link TransportCliTest}). The target's ACL names this host's default
 * IQN and default SRP initiator port, so the defaults are what the documentation says they are,
 * and another initiator port is refused.
 */
class SrpCliTest extends TransportCliTest {

    private static final String TARGET = "iqn.2026-11.org.jtarget:srp-cli";
    private static final String TARGET_PORT = "0x0123456789abcdef00a0b1c2d3e4f501";
    private static final String OTHER_INITIATOR_PORT = "0x00000000000000000000000000000001";
    private static final String CONFIG = """
            daemon: { buffer-pool: { pinned-size: 6MiB, pin: true } }
            portals:
              - { name: tcp, listen: "127.0.0.1:%d" }
              - { name: srp, listen: "127.0.0.1:%d", portal-group-tag: 3, transport: srp }
            backstores:
              - { name: ram0, type: memory, size: 8MiB }
            targets:
              - iqn: %s
                portals: [tcp, srp]
                acl: ["%s", "%s"]
                srp: { id-ext: 0x0123456789abcdef, ioc-guid: 0x00a0b1c2d3e4f501 }
                luns: [ { lun: 0, backstore: ram0 } ]
            """;

    SrpCliTest() {
        super(TARGET);
    }

    @Override
    protected String config(int tcpPort, int portalPort) {
        return CONFIG.formatted(tcpPort, portalPort, TARGET, CliArguments.defaultInitiatorName(),
                CliArguments.defaultSrpInitiatorPort());
    }

    @Override
    protected String url(int portalPort) {
        return "srp://127.0.0.1:" + portalPort + "/" + TARGET_PORT + "/0";
    }

    private String srpPortal() {
        return "srp://127.0.0.1:" + portalPort;
    }

    @Test
    void theDeviceIdentificationPageNamesTheSrpTargetPort() {
        CliRun ids = run("inquiry", url, "--vpd", "0x83");
        assertThat(ids.code()).as(ids.err()).isZero();
        assertThat(ids.out()).as("0x and the 32 digits").contains(TARGET_PORT);
    }

    @Test
    void smallWritesGoAsImmediateDataAndLargerOnesByRdmaRead() {
        // 8 KiB fits the immediate data the login agreed (inside the SRP_CMD); 8.5 KiB does not
        for (String blocks : new String[] {"16", "17"}) {
            CliRun w = run("write", url, "--lba", "9000", "--blocks", blocks, "--pattern", "random:" + blocks, "--fua");
            assertThat(w.code()).as(w.err()).isZero();
            CliRun v = run("verify", tcp, "--lba", "9000", "--blocks", blocks, "--pattern", "random:" + blocks);
            assertThat(v.code()).as(v.err()).isZero();
        }
    }

    @Test
    void benchRunsTwoChannelsOfOneNexusWithImmediateData() {
        // the second channel joins the first's I_T nexus; 4 KiB writes travel inside their SRP_CMDs
        CliRun small = run("bench", "--url", url, "--sessions", "2", "--qd", "8", "--bs", "4k", "--rw", "randwrite",
                "--seconds", "1", "--ramp", "0", "--blocks", "4096");
        assertThat(small.code()).as(small.err() + small.out()).isZero();
        assertThat(small.out()).containsPattern("write: IOPS=[1-9]").contains("errors=0").contains(url);
    }

    @Test
    void aRefusedLoginExitsThreeAndNamesTheReason() {
        String reason = SrpLoginReject.describe(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL);
        CliRun wrongPort = run("readcap", srpPortal() + "/0x0123456789abcdef00a0b1c2d3e4f502/0");
        assertThat(wrongPort.code()).as(wrongPort.err()).isEqualTo(CliFailure.LOGIN_FAILED);
        assertThat(wrongPort.err()).contains("login failed: SRP_LOGIN_REJ 0x00010000: " + reason);

        CliRun notInAcl = run("inquiry", url, "--initiator-name", OTHER_INITIATOR_PORT);
        assertThat(notInAcl.code()).as(notInAcl.err()).isEqualTo(CliFailure.LOGIN_FAILED);
        assertThat(notInAcl.err()).contains(reason);

        CliRun bench = run("bench", "--url", srpPortal() + "/0x" + "f".repeat(32) + "/0", "--seconds", "1");
        assertThat(bench.code()).as(bench.err()).isEqualTo(CliFailure.LOGIN_FAILED);
        assertThat(bench.err()).contains(reason);
    }

    @Test
    void aLunTheTargetLacksIsACheckConditionWithItsSense() {
        CliRun r = run("readcap", srpPortal() + "/" + TARGET_PORT + "/5");
        assertThat(r.code()).as(r.err()).isEqualTo(CliFailure.CHECK_CONDITION);
        assertThat(r.err()).contains("ILLEGAL REQUEST").contains("25/00");
    }

    @Test
    void digestsDiscoverAndBadInitiatorPortsAreUsageErrors() {
        CliRun digests = run("inquiry", url, "--digests");
        assertThat(digests.code()).isEqualTo(CliFailure.USAGE);
        assertThat(digests.err()).contains("--digests is not valid with an srp:// URL");
        CliRun discover = run("discover", srpPortal());
        assertThat(discover.code()).isEqualTo(CliFailure.USAGE);
        assertThat(discover.err()).contains("SRP has no discovery");
        CliRun iqn = run("readcap", url, "--initiator-name", "iqn.2026-11.org.example:x");
        assertThat(iqn.code()).isEqualTo(CliFailure.USAGE);
        assertThat(iqn.err()).contains("SRP port name");
        assertThat(run("crashcheck", "verify", "--url", url, "--journal", "j", "--digests").code())
                .isEqualTo(CliFailure.USAGE);
    }
}
