package org.jtarget.it;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.jtarget.os.Libc;

/**
 * The service manager's end of systemd's notification protocol for the tests: an AF_UNIX datagram
 * socket bound at a path (what systemd passes as {@code NOTIFY_SOCKET}), whose datagrams
 * ({@code READY=1\nSTATUS=...}) the test reads one by one, as systemd would.
 */
final class NotifySocket implements AutoCloseable {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle BIND = handle("bind", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle RECV = handle("recv", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    /** recv(2) flag: return at once when nothing is queued. */
    private static final int MSG_DONTWAIT = 0x40;

    private final Arena arena = Arena.ofShared();
    private final Path path;
    private final int fd;
    private final MemorySegment buffer = arena.allocate(4096);

    NotifySocket(Path path) throws Throwable {
        this.path = path;
        fd = Libc.socket(Libc.errnoIgnored(), Libc.AF_UNIX, Libc.SOCK_DGRAM, 0);
        if (fd < 0) {
            throw new IllegalStateException("socket(AF_UNIX, SOCK_DGRAM) failed");
        }
        byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
        MemorySegment address = arena.allocate(2 + 108, 2);
        address.set(ValueLayout.JAVA_SHORT, 0, (short) Libc.AF_UNIX);
        MemorySegment.copy(name, 0, address, ValueLayout.JAVA_BYTE, 2, name.length);
        if ((int) BIND.invokeExact(fd, address, 2 + name.length + 1) != 0) {
            throw new IllegalStateException("bind(" + path + ") failed");
        }
    }

    /** The value for {@code NOTIFY_SOCKET}. */
    String name() {
        return path.toString();
    }

    /** The next datagram, or null when none arrives within {@code within}. */
    String next(Duration within) throws Throwable {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() - deadline < 0) {
            long n = (long) RECV.invokeExact(fd, buffer, buffer.byteSize(), MSG_DONTWAIT);
            if (n >= 0) {
                return new String(buffer.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            }
            Thread.sleep(20);
        }
        return null;
    }

    /** Reads datagrams until one contains {@code assignment}; that datagram, or null after {@code within}. */
    String await(String assignment, Duration within) throws Throwable {
        long deadline = System.nanoTime() + within.toNanos();
        for (String d = next(within); d != null; d = next(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
            if (d.lines().anyMatch(assignment::equals)) {
                return d;
            }
        }
        return null;
    }

    @Override
    public void close() {
        Libc.close(Libc.errnoIgnored(), fd);
        arena.close();
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor);
    }
}
