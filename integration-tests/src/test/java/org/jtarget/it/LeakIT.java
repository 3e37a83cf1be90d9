package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DESIGN 4.1 on the real daemon: with Netty's leak detector at {@code paranoid} (every buffer
 * tracked), real clients drive every data path (immediate data, solicited Data-Out, reads, memory
 * and file LUNs, a client killed mid-transfer); then the daemon's heap is collected twice, so any
 * buffer that became garbage without being released is reported, and the daemon must stop
 * cleanly with no {@code LEAK:} line in its log ({@link DaemonProcess#stopCleanly()}).
 */
class LeakIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private Path dir;
    private DaemonProcess daemon;

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("jtarget-it-LeakIT-");
        int port = DaemonProcess.freePort();
        daemon = DaemonProcess.start(DaemonConfig.standard(port).writeTo(dir), port, "paranoid");
    }

    @AfterEach
    void cleanUp() {
        if (daemon != null && daemon.isAlive()) {
            daemon.kill();
        }
        DaemonExtension.deleteTree(dir);
    }

    @Test
    void everyDataPathReleasesItsBuffers() throws Exception {
        ClientTool.requireQemuImgWithIscsi();
        for (int lun : new int[] {DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN}) {
            qemuBench(lun, "4096", "3000", "-w");      // immediate data
            qemuBench(lun, "4096", "3000");            // Data-In
            qemuBench(lun, "262144", "200", "-w");     // unsolicited, then solicited (R2T) Data-Out
            qemuBench(lun, "262144", "200");
        }
        killClientMidTransfer();
        for (int i = 0; i < 2; i++) {
            collectGarbage();
            qemuBench(DaemonConfig.MEMORY_LUN, "4096", "500", "-w"); // allocations make the detector report
        }
        daemon.stopCleanly();
    }

    private void qemuBench(int lun, String size, String count, String... more) {
        List<String> cmd = new ArrayList<>(List.of("qemu-img", "bench", "-f", "raw", "-t", "none", "-n",
                "-d", "16", "-s", size, "-c", count));
        cmd.addAll(List.of(more));
        cmd.add(daemon.url(lun));
        ClientTool.runOk(TIMEOUT, daemon::describe, cmd.toArray(String[]::new));
    }

    /** A client with writes in flight disappears: the daemon ends its session and frees its buffers. */
    private void killClientMidTransfer() throws Exception {
        Path cli = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        Process p = new ProcessBuilder(cli.toString(), "bench", "--url", daemon.url(DaemonConfig.MEMORY_LUN),
                "--sessions", "2", "--qd", "16", "--rw", "randwrite", "--bs", "256k", "--seconds", "30")
                .redirectErrorStream(true).redirectOutput(dir.resolve("killed-bench.txt").toFile()).start();
        Thread.sleep(3000);
        p.destroyForcibly();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(daemon.isAlive()).as(daemon.describe()).isTrue();
    }

    private void collectGarbage() {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        ClientTool.runOk(TIMEOUT, daemon::describe, jcmd.toString(), Long.toString(daemon.pid()), "GC.run");
    }
}
