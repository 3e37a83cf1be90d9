package org.jtarget.initiator.rdmabench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.rdma.CompletionWaiter;
import org.jtarget.initiator.rdma.TcpProviderStack;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.rdma.loopback.LoopbackConnectionManager;
import org.jtarget.rdma.loopback.LoopbackDevice;

/**
 * Entry point of {@code jtarget-initiator rdma-bench [--seconds N] [--provider loopback|tcp|all]
 * [--op write|read|all] [--size BYTES] [--buffers one|per-request]}.
 * Starts a second JVM ({@link RdmaBenchServer}) for the iwarp provider and the baseline stream,
 * measures, and prints one line per case:
 *
 * <pre>
 * rdma-bench provider=P op=write|read size=BYTES mbps=X baseline-mbps=Y
 * </pre>
 *
 * mbps is megabits (10^6 bits) per second of payload; the baseline is a plain TCP stream of the
 * same message size in the same direction between the same two processes, through as much memory
 * as the requests use (one buffer per side by default, as perftest's ib_write_bw and ib_read_bw
 * do; {@code --buffers per-request} gives each request in flight its own). Each case's time is
 * split into three rounds that alternate baseline and provider; the medians are printed.
 */
public final class RdmaBench {

    private static final long WARM_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** Each case's time is split into this many alternating baseline/provider rounds. */
    private static final int ROUNDS = 3;

    private RdmaBench() {
    }

    /** Whether a command line is an rdma-bench one. */
    public static boolean handles(String[] args) {
        return args.length > 0 && args[0].equals(RdmaBenchArguments.WORD);
    }

    /** Runs {@code args} (starting with {@code rdma-bench}). */
    public static void run(String[] args, PrintStream out) throws IOException, CliFailure {
        RdmaBenchArguments a = RdmaBenchArguments.parse(args);
        Process server = startServer();
        try {
            BufferedReader serverOut = new BufferedReader(
                    new InputStreamReader(server.getInputStream(), StandardCharsets.US_ASCII));
            String hello = serverOut.readLine();
            while (hello != null && !hello.startsWith("rdma-bench-server ")) {
                System.err.println("rdma-bench-server: " + hello); // e.g. a JVM option's own output
                hello = serverOut.readLine();
            }
            relay(serverOut);
            if (hello == null || !hello.startsWith("rdma-bench-server ")) {
                throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: the server process did not start: " + hello);
            }
            Map<String, Integer> ports = ports(hello);
            InetSocketAddress baseline = new InetSocketAddress("127.0.0.1", ports.get("tcp"));
            for (String provider : a.providers()) {
                if (provider.equals("iwarp")) {
                    measureIwarp(new InetSocketAddress("127.0.0.1", ports.get("rdma")), a, baseline, out);
                } else {
                    measureLoopback(a, baseline, out);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: interrupted");
        } finally {
            server.getOutputStream().close();
            try {
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroy();
                }
            } catch (InterruptedException e) {
                server.destroy();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Copies the server's further output (its log) to our stderr, so a full pipe never stalls it. */
    private static void relay(BufferedReader serverOut) {
        Thread t = new Thread(() -> {
            try {
                String line;
                while ((line = serverOut.readLine()) != null) {
                    System.err.println("rdma-bench-server: " + line);
                }
            } catch (IOException e) {
                // the server ended
            }
        }, "rdma-bench-server-output");
        t.setDaemon(true);
        t.start();
    }

    private static Process startServer() throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new java.util.ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        // the same JVM settings as this process (leak detection level, Unsafe access...), so both
        // sides of the measurement run alike; recordings and agents stay with this process
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-XX:StartFlightRecording") && !arg.startsWith("-agent") && !arg.startsWith("-javaagent")
                    && !arg.startsWith("--enable-native-access")) {
                command.add(arg);
            }
        }
        String extra = System.getenv("RDMA_BENCH_SERVER_JAVA_OPTS"); // e.g. a profiler for the second process
        if (extra != null && !extra.isBlank()) {
            command.addAll(List.of(extra.trim().split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), RdmaBenchServer.class.getName()));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static Map<String, Integer> ports(String hello) {
        Map<String, Integer> ports = new HashMap<>();
        for (String word : hello.split(" ")) {
            int eq = word.indexOf('=');
            if (eq > 0) {
                ports.put(word.substring(0, eq), Integer.parseInt(word.substring(eq + 1)));
            }
        }
        return ports;
    }

    /**
     * The baseline of one case, measured right before it: on a shared machine the load drifts, and
     * comparing figures taken seconds apart would measure the drift.
     */
    private static double baseline(InetSocketAddress addr, boolean write, int size, int footprint, long nanos)
            throws CliFailure {
        try {
            TcpBaseline.measure(addr, write, size, footprint, WARM_UP_NANOS);
            return TcpBaseline.measure(addr, write, size, footprint, nanos);
        } catch (IOException e) {
            throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: baseline stream failed: " + e);
        }
    }

    private static void measureIwarp(SocketAddress addr, RdmaBenchArguments a, InetSocketAddress baseline, PrintStream out)
            throws IOException, CliFailure, InterruptedException {
        try (TcpProviderStack stack = TcpProviderStack.open(BenchTarget.REGION_BYTES)) {
            BenchMemory.sayIfUnpinned(stack.memory());
            measure("iwarp", stack.device(), stack.connectionManager(), stack.memory().segment(), addr, a, baseline,
                    out);
        }
    }

    private static void measureLoopback(RdmaBenchArguments a, InetSocketAddress baseline, PrintStream out)
            throws IOException, CliFailure, InterruptedException {
        try (BenchMemory memory = BenchMemory.map(2)) {
            LoopbackDevice device = new LoopbackDevice("loopback0", LoopbackDevice.DEFAULT_ATTRIBUTES, memory.policy(),
                    null);
            try (LoopbackConnectionManager cm = new LoopbackConnectionManager(device)) {
                BenchTarget target = new BenchTarget(device, memory.region(1));
                SocketAddress addr = new InetSocketAddress("127.0.0.1", 1);
                cm.listen(addr, target::onEvent);
                measure("loopback", device, cm, memory.region(0), addr, a, baseline, out);
            }
        } catch (RdmaException e) {
            throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: " + e.getMessage());
        }
    }

    private static void measure(String provider, RdmaDevice device, ConnectionManager cm, MemorySegment memory,
                                SocketAddress addr, RdmaBenchArguments a, InetSocketAddress baseline, PrintStream out)
            throws CliFailure, InterruptedException {
        boolean eventDriven = provider.equals("iwarp");
        try {
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionWaiter waiter = new CompletionWaiter();
            EventDrivenThroughput events = new EventDrivenThroughput();
            CompletionQueue cq = device.createCompletionQueue(BenchTarget.DEPTH * 2, eventDriven ? events : waiter);
            QueuePair qp = device.createQueuePair(pd,
                    new QueuePairInitAttributes(cq, cq, BenchTarget.DEPTH, BenchTarget.DEPTH, 1, 1));
            MemoryRegion local = pd.registerMemoryRegion(memory, EnumSet.allOf(AccessFlag.class));
            BlockingQueue<CmEvent> cmEvents = new LinkedBlockingQueue<>();
            cm.connect(addr, qp, null, cmEvents::add);
            CmEvent e = cmEvents.poll(30, TimeUnit.SECONDS);
            if (e == null || e.type() != CmEventType.ESTABLISHED) {
                throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: " + provider + " connection failed: "
                        + (e == null ? "timeout" : e.type()));
            }
            ByteBuffer pdata = ByteBuffer.wrap(e.privateData());
            long remoteAddress = pdata.getLong();
            int rkey = pdata.getInt();
            RdmaThroughput polled = new RdmaThroughput(qp, waiter, local, remoteAddress, rkey);
            events.target(qp, local, remoteAddress, rkey);
            long nanos = TimeUnit.SECONDS.toNanos(a.seconds());
            for (String opName : a.ops()) {
                boolean write = opName.equals("write");
                WorkRequestOpcode op = write ? WorkRequestOpcode.RDMA_WRITE : WorkRequestOpcode.RDMA_READ;
                for (int size : a.sizes()) {
                    int depth = depth(size);
                    int buffers = a.bufferPerRequest() ? depth : 1;
                    double[] base = new double[ROUNDS];
                    double[] bps = new double[ROUNDS];
                    long slice = nanos / ROUNDS;
                    for (int r = 0; r < ROUNDS; r++) {
                        // alternate the two so that both see the same load drift; report medians
                        base[r] = baseline(baseline, write, size, buffers * size, slice);
                        if (eventDriven) {
                            events.run(op, size, depth, buffers, WARM_UP_NANOS);
                            bps[r] = events.run(op, size, depth, buffers, slice);
                        } else {
                            polled.run(op, size, depth, buffers, WARM_UP_NANOS);
                            bps[r] = polled.run(op, size, depth, buffers, slice);
                        }
                    }
                    out.println(line(provider, write, size, median(bps), median(base)));
                    out.flush();
                }
            }
            CmId id = e.id();
            id.disconnect();
        } catch (RdmaException ex) {
            throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: " + provider + ": " + ex.getMessage());
        }
    }

    /**
     * Requests kept in flight: about 32 MiB (at most 1024 requests), like the several megabytes a TCP
     * stream keeps in its socket buffers. One-sided operations only complete after a round trip,
     * and on a loaded machine each round trip waits for two threads to be scheduled, so a small window
     * would measure the scheduler, not the transport.
     */
    static int depth(int size) {
        return Math.max(8, Math.min(BenchTarget.DEPTH, BenchTarget.REGION_BYTES / size));
    }

    static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static String line(String provider, boolean write, int size, double bytesPerSecond, double baselineBytesPerSecond) {
        return String.format(Locale.ROOT, "rdma-bench provider=%s op=%s size=%d mbps=%.0f baseline-mbps=%.0f",
                provider, write ? "write" : "read", size, bytesPerSecond * 8 / 1e6, baselineBytesPerSecond * 8 / 1e6);
    }
}
