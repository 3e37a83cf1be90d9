package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code jtarget-initiator rdma-bench} as a process, the way an operator runs it: both providers
 * (the iwarp one between this process and the child it starts), both directions, and the baseline
 * stream, one line per case in the documented format. The figures themselves belong in
 * docs/performance.md; a shared CI machine only shows that every case moved data.
 */
class RdmaBenchIT {

    private static final Pattern LINE = Pattern.compile(
            "(?m)^rdma-bench provider=(loopback|iwarp) op=(write|read) size=65536 mbps=(\\d+) baseline-mbps=(\\d+)$");

    @Test
    void everyProviderAndDirectionMovesDataNextToItsBaseline() {
        Path cli = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        ClientTool.Result r = ClientTool.run(Duration.ofSeconds(120), () -> "", cli.toString(), "rdma-bench",
                "--seconds", "1", "--size", "65536");
        assertThat(r.exitCode()).as(r.describe()).isZero();
        Matcher m = LINE.matcher(r.stdout());
        List<String> cases = new ArrayList<>();
        while (m.find()) {
            cases.add(m.group(1) + " " + m.group(2));
            assertThat(Long.parseLong(m.group(3))).as(r.describe()).isPositive();
            assertThat(Long.parseLong(m.group(4))).as(r.describe()).isPositive();
        }
        assertThat(cases).as(r.describe()).containsExactly("loopback write", "loopback read", "iwarp write", "iwarp read");
    }
}
