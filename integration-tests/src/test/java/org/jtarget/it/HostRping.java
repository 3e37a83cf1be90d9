package org.jtarget.it;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Our rping ({@code jtarget-initiator rping}) on the host, for the guest scenarios that face
 * rdma-core's rping over the guest's siw: a server started before the guest connects to it
 * (10.0.2.2 in the guest is the host's 127.0.0.1), or a client run against a port QEMU forwards
 * into the guest ({@link GuestVm.PortForward}). Both verify every ping ({@code -V}) and print each
 * ({@code -v}).
 */
final class HostRping implements AutoCloseable {

    private static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path output;

    private HostRping(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    private static String cli() {
        return DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator").toString();
    }

    /**
     * Starts {@code jtarget-initiator rping -s -a 127.0.0.1 -p PORT -V -v} (with {@code --crc}: MPA
     * CRC32C turned on in its reply) and returns once it listens (it says so on stderr); fails with
     * its output if it does not within 30 s.
     */
    static HostRping server(Path dir, int port, boolean crc) throws IOException, InterruptedException {
        Path output = dir.resolve("rping-server-" + port + ".log");
        List<String> command = new ArrayList<>(List.of(cli(), "rping", "-s", "-a", "127.0.0.1", "-p",
                Integer.toString(port), "-V", "-v"));
        if (crc) {
            command.add("--crc");
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        HostRping server = new HostRping(p, output);
        long deadline = System.nanoTime() + LISTEN_TIMEOUT.toNanos();
        while (!server.output().contains("rping: server listening on")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new AssertionError("our rping server did not start listening on port " + port + ":\n"
                        + server.output());
            }
            Thread.sleep(100);
        }
        return server;
    }

    /**
     * Runs {@code jtarget-initiator rping -c -a 127.0.0.1 -p PORT -C COUNT -v -V} (with {@code --crc}:
     * MPA CRC32C asked for in its request; then {@code options}, such as {@code --p2p=read}), at most
     * 4 minutes.
     */
    static ClientTool.Result client(int port, int count, boolean crc, String... options) {
        List<String> command = new ArrayList<>(List.of(cli(), "rping", "-c", "-a", "127.0.0.1", "-p",
                Integer.toString(port), "-C", Integer.toString(count), "-v", "-V"));
        if (crc) {
            command.add("--crc");
        }
        command.addAll(List.of(options));
        return ClientTool.run(Duration.ofMinutes(4), null, command.toArray(String[]::new));
    }

    /** The server's exit code once it ended (it ends after its client disconnects); fails after {@code timeout}. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("our rping server did not end within " + timeout.toSeconds() + " s:\n"
                    + output());
        }
        return process.exitValue();
    }

    /** What the server printed so far (stdout and stderr). */
    String output() {
        try {
            return Files.exists(output) ? Files.readString(output, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + output + ": " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
