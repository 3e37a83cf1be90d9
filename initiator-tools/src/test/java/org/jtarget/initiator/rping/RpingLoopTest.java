package org.jtarget.initiator.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.JtargetInitiator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Our rping client against our rping server over the tcp provider, in one process (loopback TCP). */
@Timeout(120)
class RpingLoopTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** A server on an ephemeral port serving on a thread; the future ends with its outcome. */
    private record Served(RpingServer server, CompletableFuture<Void> done, ByteArrayOutputStream out) {
    }

    private static Served serve(String... options) throws Exception {
        String[] args = new String[options.length + 3];
        args[0] = "rping";
        args[1] = "-s";
        args[2] = "-p0";
        System.arraycopy(options, 0, args, 3, options.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RpingServer server = RpingServer.listen(RpingArguments.parse(args), new PrintStream(out, true),
                System.err, TIMEOUT);
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofPlatform().name("rping-server").start(() -> {
            try {
                server.serve();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        return new Served(server, done, out);
    }

    /** Runs the client through the CLI; returns its exit code, with its stdout and stderr. */
    private record ClientRun(int exitCode, String out, String err) {
    }

    private static ClientRun client(OutputStream stdout, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = new String[args.length + 2];
        all[0] = "rping";
        all[1] = "-c";
        System.arraycopy(args, 0, all, 2, args.length);
        int code = JtargetInitiator.run(all, new PrintStream(stdout, true), new PrintStream(err, true));
        return new ClientRun(code, stdout.toString(), err.toString(StandardCharsets.UTF_8));
    }

    /** The client against {@code s}'s server with {@code options}. */
    private static ClientRun clientOf(Served s, OutputStream stdout, String... options) {
        String[] args = new String[options.length + 4];
        args[0] = "-a";
        args[1] = "127.0.0.1";
        args[2] = "-p";
        args[3] = Integer.toString(s.server().port());
        System.arraycopy(options, 0, args, 4, options.length);
        return client(stdout, args);
    }

    @Test
    void hundredValidatedPingsOfEverySizeClass() throws Exception {
        for (int size : new int[] {64, 26, 65535}) {
            Served s = serve("-V", "-v", "-S", "65535");
            try (RpingServer server = s.server()) {
                ClientRun c = clientOf(s, new ByteArrayOutputStream(), "-C", "100", "-V", "-v", "-S",
                        Integer.toString(size));
                assertThat(c.exitCode()).as(c.err()).isZero();
                assertThat(c.out().lines()).hasSize(100).allMatch(l -> l.startsWith("ping data: rdma-ping-"));
                assertThat(c.out().lines().toList().get(99))
                        .startsWith("ping data: rdma-ping-99: " + (char) (65 + 99 % 58));
                assertThat(c.out().lines().toList().get(0)).hasSize("ping data: ".length() + size - 1);
                s.done().get(10, TimeUnit.SECONDS); // the server ends cleanly once the client disconnects
                assertThat(s.out().toString().lines()).hasSize(100).allMatch(l -> l.startsWith("server ping data: "));
            }
        }
    }

    @Test
    void validatedPingsWithCrcAskedForByEitherSide() throws Exception {
        for (String[] crcAt : new String[][] {{"--crc"}, {}}) {
            Served s = serve(crcAt.length == 0 ? new String[] {"-V", "--crc"} : new String[] {"-V"});
            try (RpingServer server = s.server()) {
                ClientRun c = clientOf(s, new ByteArrayOutputStream(), concat(crcAt, "-C", "20", "-V"));
                assertThat(c.exitCode()).as(c.err()).isZero();
                s.done().get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void validatedPingsInPeerToPeerModeWithEachRtr() throws Exception {
        String[][] cases = {{"write", "RDMA WRITE"}, {"read", "RDMA READ"}, {"send", "SEND"}};
        for (String[] rtr : cases) {
            Served s = serve("-V");
            try (RpingServer server = s.server()) {
                ClientRun c = clientOf(s, new ByteArrayOutputStream(), "--p2p=" + rtr[0], "-C", "20", "-V", "-v");
                assertThat(c.exitCode()).as(c.err()).isZero();
                assertThat(c.out().lines().toList().get(0))
                        .isEqualTo("rping: peer-to-peer mode, RTR zero-length " + rtr[1]);
                assertThat(c.out().lines().filter(l -> l.startsWith("ping data: rdma-ping-"))).hasSize(20);
                s.done().get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aServerWithCrcTurnsItOnInItsMpaReply() throws Exception {
        assertThat(mpaReplyFlags(serve("--crc")) & MPA_FLAG_CRC).isEqualTo(MPA_FLAG_CRC);
        assertThat(mpaReplyFlags(serve()) & MPA_FLAG_CRC).isZero();
    }

    private static final int MPA_FLAG_CRC = 0x40;

    /** Sends siw's MPA request (revision 2, enhanced, no CRC, IRD/ORD 1/1) and returns the reply's flags byte. */
    private static int mpaReplyFlags(Served s) throws Exception {
        try (RpingServer server = s.server();
             Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.write("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
            out.writeByte(0x10);
            out.writeByte(2);
            out.writeShort(4);
            out.writeShort(1);
            out.writeShort(1);
            out.flush();
            byte[] header = new DataInputStream(socket.getInputStream()).readNBytes(20);
            assertThat(new String(header, 0, 16, StandardCharsets.US_ASCII)).isEqualTo("MPA ID Rep Frame");
            return header[16] & 0xff;
        }
    }

    private static String[] concat(String[] first, String... rest) {
        String[] all = Arrays.copyOf(first, first.length + rest.length);
        System.arraycopy(rest, 0, all, first.length, rest.length);
        return all;
    }

    @Test
    void aPersistentServerServesOneClientAfterAnother() throws Exception {
        Served s = serve("-P", "-V", "-v");
        try (RpingServer server = s.server()) {
            for (int client = 0; client < 3; client++) {
                ClientRun c = clientOf(s, new ByteArrayOutputStream(), "-C", "10", "-V");
                assertThat(c.exitCode()).as(c.err()).isZero();
            }
            assertThat(s.done()).isNotDone(); // still serving
            // each client starts again at ping 0, and the server checks each against that
            assertThat(s.out().toString().lines().filter(l -> l.startsWith("server ping data: rdma-ping-9: ")))
                    .hasSize(3);
        }
    }

    @Test
    void aServerThatWritesBackOtherDataIsAMismatch() throws Exception {
        Served s = serve();
        try (RpingServer server = s.server()) {
            server.beforeWrite(data -> data.set(ValueLayout.JAVA_BYTE, 30, (byte) '#'));
            ClientRun c = clientOf(s, new ByteArrayOutputStream(), "-C", "5", "-V");
            assertThat(c.exitCode()).isEqualTo(CliFailure.MISCOMPARE);
            assertThat(c.err()).contains("rping: ping 0: data mismatch at byte 30 of 64").hasLineCount(1);
        }
    }

    @Test
    void withoutValidationTheSameCorruptionGoesUnnoticed() throws Exception {
        Served s = serve();
        try (RpingServer server = s.server()) {
            server.beforeWrite(data -> data.set(ValueLayout.JAVA_BYTE, 30, (byte) '#'));
            ClientRun c = clientOf(s, new ByteArrayOutputStream(), "-C", "3", "-v");
            assertThat(c.exitCode()).as(c.err()).isZero();
            assertThat(c.out()).contains("#");
        }
    }

    @Test
    void theServerGoingAwayMidRunFailsTheClientWithOneLine() throws Exception {
        Served s = serve();
        CountDownLatch tenPings = new CountDownLatch(10);
        OutputStream countingOut = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                super.write(b, off, len);
                for (int i = off; i < off + len; i++) {
                    if (b[i] == '\n') {
                        tenPings.countDown();
                    }
                }
            }
        };
        CompletableFuture<ClientRun> run = CompletableFuture.supplyAsync(
                () -> clientOf(s, countingOut, "-C", "0", "-v", "-V"));
        assertThat(tenPings.await(30, TimeUnit.SECONDS)).isTrue();
        s.server().close();
        ClientRun c = run.get(30, TimeUnit.SECONDS);
        assertThat(c.exitCode()).isEqualTo(CliFailure.IO_ERROR);
        assertThat(c.err()).startsWith("jtarget-initiator: rping: ").hasLineCount(1);
    }

    @Test
    void nothingListeningIsAConnectFailure() throws Exception {
        Served s = serve();
        int port = s.server().port();
        s.server().close();
        ClientRun c = client(new ByteArrayOutputStream(), "-a", "127.0.0.1", "-p", Integer.toString(port), "-C", "1");
        assertThat(c.exitCode()).isEqualTo(CliFailure.LOGIN_FAILED);
        assertThat(c.err()).contains("rping: cannot connect to 127.0.0.1:" + port);
    }
}
