package org.jtarget.scsi.pr;

import org.jtarget.scsi.spi.ProtocolId;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Persistent reservation state of one LU kept through power loss (APTPL, SPC-4 5.13.5): the
 * registrations and the reservation, as a small text file written atomically (temporary file,
 * fsync, rename over the old file, fsync of the directory), so a crash leaves either the old or
 * the new state, never a torn one. PRgeneration is not kept (SPC-4 6.14.2: zero after power on).
 * <pre>
 * jtarget-pr 1
 * reg[/&lt;protocol&gt;] &lt;key hex&gt; &lt;relative target port&gt; &lt;all target ports 0|1&gt; &lt;initiator port name&gt;
 * res &lt;index of the holder's reg line, or -1 for all registrants&gt; &lt;type code hex&gt;
 * </pre>
 * A {@code reg} line without a protocol is an iSCSI initiator port (the files written before
 * other protocols existed); other protocols write theirs, e.g. {@code reg/srp}.
 */
public final class PrStateFile {

    private static final String MAGIC = "jtarget-pr 1";
    private static final String REG = "reg";

    private final Path path;

    /** @param path the state file, e.g. {@code <state-dir>/pr/<target-iqn>/lun0.pr} */
    public PrStateFile(Path path) {
        this.path = path;
    }

    /** The file. */
    public Path path() {
        return path;
    }

    /**
     * Loads the state into {@code r} (APTPL on) if the file exists.
     *
     * @return true if a state was loaded
     */
    boolean load(Reservations r) throws IOException {
        if (!Files.exists(path)) {
            return false;
        }
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).equals(MAGIC)) {
            throw new IOException(path + ": not a jtarget reservation state file");
        }
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(" ", 5);
            ProtocolId protocol = registrationProtocol(f[0]);
            if (protocol != null && f.length == 5) {
                r.registrations.add(new Registration(protocol, f[4], Integer.parseInt(f[2]), f[3].equals("1"),
                        Long.parseUnsignedLong(f[1], 16)));
            } else if (f[0].equals("res") && f.length == 3) {
                int index = Integer.parseInt(f[1]);
                PrType t = PrType.fromCode(Integer.parseInt(f[2], 16));
                if (t == null || (!t.allRegistrants() && (index < 0 || index >= r.registrations.size()))) {
                    throw new IOException(path + ": bad reservation line: " + line);
                }
                r.reserve(t.allRegistrants() ? null : r.registrations.get(index), t);
            } else if (!line.isBlank()) {
                throw new IOException(path + ": bad line: " + line);
            }
        }
        r.aptpl = true;
        return true;
    }

    /** The protocol of a {@code reg[/<protocol>]} line, or null if the keyword is not one. */
    private static ProtocolId registrationProtocol(String keyword) {
        if (keyword.equals(REG)) {
            return ProtocolId.ISCSI;
        }
        for (ProtocolId p : ProtocolId.values()) {
            if (keyword.equals(REG + "/" + protocolName(p))) {
                return p;
            }
        }
        return null;
    }

    private static String protocolName(ProtocolId p) {
        return p.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Replaces the file with {@code r}'s state, atomically and durably. */
    void write(Reservations r) throws IOException {
        StringBuilder s = new StringBuilder(MAGIC).append('\n');
        for (Registration reg : r.registrations) {
            s.append(REG).append(reg.protocol() == ProtocolId.ISCSI ? "" : "/" + protocolName(reg.protocol()))
                    .append(' ').append(Long.toHexString(reg.key())).append(' ').append(reg.relativeTargetPortId())
                    .append(' ').append(reg.allTargetPorts() ? 1 : 0).append(' ').append(reg.initiatorPortName())
                    .append('\n');
        }
        if (r.type != null) {
            int index = r.type.allRegistrants() ? -1 : r.registrations.indexOf(r.holder);
            s.append("res ").append(index).append(' ').append(Integer.toHexString(r.type.code)).append('\n');
        }
        Path dir = path.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(path.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(s.toString().getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
        try {
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
        }
        syncDirectory(dir);
    }

    /** APTPL turned off: the state must not survive a restart any more. */
    void delete() throws IOException {
        if (Files.deleteIfExists(path)) {
            syncDirectory(path.toAbsolutePath().getParent());
        }
    }

    /** fsync of the directory makes the rename durable (POSIX); not every platform allows it. */
    private static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // e.g. Windows cannot open a directory; the rename itself is still atomic
        }
    }
}
