package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.jtarget.initiator.cli.CliFailure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The daemon's RDMA store endpoints (the {@code rdma:} section) driven by {@code jtarget-initiator}
 * with rdma:// URLs, as processes: blocks written one-sided are what the iSCSI LUN on the same
 * store reads and the other way round, a read-only endpoint refuses writes, unknown endpoints and
 * peers that are not allowed are rejected with the reason, and the daemon keeps serving through it.
 */
class RdmaEndpointIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int RDMA_PORT = DaemonProcess.freePort();

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension(port -> DaemonConfig.standard(port).toYaml() + """
            rdma:
              listen: 127.0.0.1:%d
              endpoints:
                - { name: ram0, backstore: ram0, allowed-peers: [127.0.0.1] }
                - { name: file0-tail, backstore: file0, first-block: 1024, read-only: true, allowed-peers: [127.0.0.1] }
                - { name: elsewhere, backstore: ram0, block-count: 8, allowed-peers: [192.0.2.1] }
            """.formatted(RDMA_PORT));

    private static String rdma(String endpoint) {
        return "rdma://127.0.0.1:" + RDMA_PORT + "/" + endpoint;
    }

    private static ClientTool.Result cli(String... args) {
        Path cli = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        String[] cmd = new String[args.length + 1];
        cmd[0] = cli.toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        return ClientTool.run(TIMEOUT, () -> DAEMON.daemon().describe(), cmd);
    }

    private static void assertExit(ClientTool.Result r, int code) {
        assertThat(r.exitCode()).as(r.describe()).isEqualTo(code);
    }

    @Test
    void readcapShowsTheExposedBlocks() {
        ClientTool.Result r = cli("readcap", rdma("file0-tail"));
        assertExit(r, 0);
        long blocks = 512 * DaemonConfig.MIB / 512 - 1024;
        assertThat(r.stdout()).isEqualTo("Block size: 512\nBlocks: " + blocks + "\nBytes: " + blocks * 512 + "\n");
    }

    @Test
    void blocksWrittenOneSidedAreWhatTheLunReadsAndTheOtherWayRound() {
        String lun0 = DAEMON.daemon().url(DaemonConfig.MEMORY_LUN);
        assertExit(cli("write", rdma("ram0"), "--lba", "1000", "--blocks", "6000", "--pattern", "random:11"), 0);
        assertExit(cli("verify", lun0, "--lba", "1000", "--blocks", "6000", "--pattern", "random:11"), 0);

        assertExit(cli("write", lun0, "--lba", "9000", "--blocks", "3000", "--pattern", "random:12"), 0);
        assertExit(cli("verify", rdma("ram0"), "--lba", "9000", "--blocks", "3000", "--pattern", "random:12"), 0);
        ClientTool.Result wrong = cli("verify", rdma("ram0"), "--lba", "9000", "--blocks", "3000", "--pattern", "random:13");
        assertExit(wrong, CliFailure.MISCOMPARE);
    }

    @Test
    void aReadOnlyEndpointRefusesWritesAndLeavesTheStoreAlone() {
        String lun1 = DAEMON.daemon().url(DaemonConfig.FILE_LUN);
        assertExit(cli("write", lun1, "--lba", "1024", "--blocks", "64", "--pattern", "0x5a"), 0);
        ClientTool.Result refused = cli("write", rdma("file0-tail"), "--lba", "0", "--blocks", "64", "--pattern", "0x11");
        assertExit(refused, CliFailure.CHECK_CONDITION); // the target refused the access
        assertThat(refused.stderr()).as(refused.describe()).contains("REM_ACCESS_ERR");
        assertExit(cli("verify", lun1, "--lba", "1024", "--blocks", "64", "--pattern", "0x5a"), 0);
        assertExit(cli("verify", rdma("file0-tail"), "--lba", "0", "--blocks", "64", "--pattern", "0x5a"), 0);
    }

    @Test
    void unknownEndpointsAndPeersNotAllowedAreRejectedWithTheReason() {
        ClientTool.Result unknown = cli("readcap", rdma("nope"));
        assertExit(unknown, CliFailure.LOGIN_FAILED);
        assertThat(unknown.stderr()).as(unknown.describe()).contains("rejected (unknown endpoint): no endpoint 'nope'");
        ClientTool.Result other = cli("read", rdma("elsewhere"), "--lba", "0", "--blocks", "1");
        assertExit(other, CliFailure.LOGIN_FAILED);
        assertThat(other.stderr()).as(other.describe()).contains("rejected (peer not allowed): 127.0.0.1");
        assertThat(DAEMON.daemon().isAlive()).as(DAEMON.daemon().describe()).isTrue();
        assertExit(cli("readcap", DAEMON.daemon().url(DaemonConfig.MEMORY_LUN)), 0);
    }
}
