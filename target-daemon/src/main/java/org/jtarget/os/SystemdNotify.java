package org.jtarget.os;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * systemd's service notification protocol (sd_notify(3)) without libsystemd: newline-separated
 * {@code VARIABLE=VALUE} assignments, one datagram each, to the AF_UNIX datagram socket that
 * {@code $NOTIFY_SOCKET} names (a file system path, or an abstract name when it starts with
 * {@code @}). Under {@code Type=notify}, {@code READY=1} is when systemd considers the service
 * started (units ordered after it start only then), {@code STATUS=} is what {@code systemctl status}
 * shows, and with {@code WatchdogSec=} a {@code WATCHDOG=1} within {@code $WATCHDOG_USEC} keeps the
 * service from being killed as hung.
 */
public final class SystemdNotify implements AutoCloseable {

    /** sizeof(struct sockaddr_un): sa_family_t (2 bytes) and sun_path[108]. */
    private static final int SUN_PATH_BYTES = 108;

    private final String socketName;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment address;
    private final MemorySegment state = Libc.newCallState(arena);
    private final Duration watchdog;
    private final int fd;
    private boolean closed;

    private SystemdNotify(String socketName, Duration watchdog) throws IOException {
        this.socketName = socketName;
        this.watchdog = watchdog;
        this.address = sockaddrUn(arena, socketName);
        this.fd = Libc.socket(state, Libc.AF_UNIX, Libc.SOCK_DGRAM | Libc.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            int errno = Libc.errno(state);
            arena.close();
            throw new IOException("socket(AF_UNIX, SOCK_DGRAM) failed, errno " + errno);
        }
    }

    /**
     * The notifier the environment asks for, or null when the process was not started by a service
     * manager that listens ({@code NOTIFY_SOCKET} unset or empty).
     *
     * @param env the process's environment
     * @param pid this process's id: {@code WATCHDOG_PID}, when set, names the process the watchdog
     *            is meant for
     * @throws IllegalArgumentException when {@code NOTIFY_SOCKET} or {@code WATCHDOG_USEC} is not
     *                                  one this can use (the message names the variable)
     */
    public static SystemdNotify fromEnvironment(Map<String, String> env, long pid) throws IOException {
        String socket = env.getOrDefault("NOTIFY_SOCKET", "");
        if (socket.isEmpty()) {
            return null;
        }
        return new SystemdNotify(socket, watchdogInterval(env, pid));
    }

    /** {@code WATCHDOG_USEC} as a duration when it is meant for this process, else null. */
    static Duration watchdogInterval(Map<String, String> env, long pid) {
        String usec = env.getOrDefault("WATCHDOG_USEC", "");
        String forPid = env.getOrDefault("WATCHDOG_PID", "");
        if (usec.isEmpty() || !forPid.isEmpty() && !forPid.equals(Long.toString(pid))) {
            return null;
        }
        try {
            long micros = Long.parseLong(usec);
            if (micros > 0) {
                return Duration.ofNanos(Math.multiplyExact(micros, 1000L));
            }
        } catch (NumberFormatException | ArithmeticException e) {
            // the message below
        }
        throw new IllegalArgumentException("WATCHDOG_USEC=" + usec + " is not a positive number of microseconds");
    }

    /**
     * struct sockaddr_un for {@code name}: a path ends with a NUL inside the address; an abstract
     * name ({@code @name}) starts with a NUL instead and has none at the end (its length is the
     * address length).
     */
    static MemorySegment sockaddrUn(Arena arena, String name) {
        boolean abstractName = name.startsWith("@");
        if (!abstractName && !name.startsWith("/")) {
            throw new IllegalArgumentException("NOTIFY_SOCKET=" + name + " is neither an absolute path nor @abstract");
        }
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        int pathBytes = abstractName ? bytes.length : bytes.length + 1;
        if (pathBytes > SUN_PATH_BYTES) {
            throw new IllegalArgumentException("NOTIFY_SOCKET=" + name + " is longer than a socket address holds");
        }
        MemorySegment a = arena.allocate(2 + pathBytes, 2);
        a.set(ValueLayout.JAVA_SHORT, 0, (short) Libc.AF_UNIX); // native order: sa_family_t is host-endian
        MemorySegment.copy(bytes, 0, a, ValueLayout.JAVA_BYTE, 2, bytes.length);
        if (abstractName) {
            a.set(ValueLayout.JAVA_BYTE, 2, (byte) 0);
        }
        return a;
    }

    /** The watchdog interval systemd expects pings within, or null when it watches nothing. */
    public Duration watchdog() {
        return watchdog;
    }

    /** Where the notifications go, as {@code NOTIFY_SOCKET} said. */
    public String socketName() {
        return socketName;
    }

    /**
     * Sends one notification, e.g. {@code "READY=1\nSTATUS=serving"}; errno when the datagram was
     * not sent (the service manager went away, the socket is not one), 0 when it was.
     */
    public synchronized int send(String assignments) {
        if (closed) {
            return Libc.EBADF;
        }
        try (Arena call = Arena.ofConfined()) {
            byte[] bytes = assignments.getBytes(StandardCharsets.UTF_8);
            MemorySegment message = call.allocate(bytes.length);
            MemorySegment.copy(bytes, 0, message, ValueLayout.JAVA_BYTE, 0, bytes.length);
            long sent = Libc.sendto(state, fd, message, Libc.MSG_NOSIGNAL, address);
            return sent == bytes.length ? 0 : sent < 0 ? Libc.errno(state) : Libc.EAGAIN;
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Libc.close(Libc.errnoIgnored(), fd);
        arena.close();
    }
}
