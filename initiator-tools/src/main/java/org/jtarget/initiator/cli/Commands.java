package org.jtarget.initiator.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * The CLI commands, printing to {@code out}: discover on an iSCSI {@link InitiatorSession}, inquiry
 * on any {@link ScsiSession}, readcap, read, write and verify on any {@link BlockDevice}.
 */
final class Commands {

    private static final int INQUIRY_ALLOCATION = 255;
    private static final int VPD_ALLOCATION = 4096;
    private static final int ILLEGAL_REQUEST = 0x5;

    private Commands() {
    }

    /** Prints each target name and, indented, its addresses (RFC 7143 12.3: TargetAddress follows its name). */
    static void discover(InitiatorSession s, PrintStream out) throws IOException {
        List<String> pairs = s.sendTargets();
        for (String pair : pairs) {
            if (pair.startsWith("TargetName=")) {
                out.println(pair.substring("TargetName=".length()));
            } else if (pair.startsWith("TargetAddress=")) {
                out.println("  " + pair.substring("TargetAddress=".length()));
            }
        }
    }

    static void inquiry(ScsiSession s, CliArguments a, PrintStream out) throws IOException, CliFailure {
        if (a.vpdPage() < 0) {
            byte[] d = s.dataIn(ScsiCdbs.inquiry(false, 0, INQUIRY_ALLOCATION), INQUIRY_ALLOCATION, "INQUIRY");
            out.print(InquiryData.decode(d).describe());
        } else {
            byte[] d = s.dataIn(ScsiCdbs.inquiry(true, a.vpdPage(), VPD_ALLOCATION), VPD_ALLOCATION,
                    "INQUIRY VPD 0x" + Integer.toHexString(a.vpdPage()));
            out.print(VpdPages.describe(d));
        }
    }

    /** READ CAPACITY (16), falling back to (10) when the target rejects the opcode (ILLEGAL REQUEST). */
    static Capacity capacity(ScsiSession s) throws IOException, CliFailure {
        ScsiResult r16 = s.execute(ScsiCdbs.readCapacity16(Capacity.RC16_LENGTH), Capacity.RC16_LENGTH);
        if (r16.good()) {
            return Capacity.decode16(r16.data());
        }
        if (r16.status() != ScsiResult.CHECK_CONDITION || r16.senseKey() != ILLEGAL_REQUEST) {
            ScsiSession.check(r16, "READ CAPACITY (16)");
        }
        byte[] d = s.dataIn(ScsiCdbs.readCapacity10(), Capacity.RC10_LENGTH, "READ CAPACITY (10)");
        return Capacity.decode10(d);
    }

    static void readcap(BlockDevice d, PrintStream out) throws IOException, CliFailure {
        out.print(d.capacity().describe());
    }

    /** Reads chunk by chunk into {@code --out}, or hex-dumps to stdout (addresses relative to --lba). */
    static void read(BlockDevice d, CliArguments a, PrintStream out) throws IOException, CliFailure {
        d.capacity(); // before --out is created: a target that cannot tell its capacity leaves no file behind
        try (OutputStream file = a.out() == null ? null : Files.newOutputStream(a.out())) {
            d.read(a.lba(), a.blocks(), (c, data) -> {
                if (file != null) {
                    file.write(data);
                } else {
                    out.print(HexDump.format(data, 0, data.length, c.offset()));
                }
            });
        }
    }

    static void write(BlockDevice d, CliArguments a, PrintStream out) throws IOException, CliFailure {
        int blockSize = d.capacity().blockSize();
        try (FileSource file = a.in() == null ? null : new FileSource(a.in())) {
            d.write(a.lba(), a.blocks(), file != null ? file : a.dataPattern());
        }
        out.println("wrote " + a.blocks() + " blocks (" + a.blocks() * blockSize + " bytes) at LBA " + a.lba());
    }

    /** Reads and compares on the client; the first differing byte is exit 1. */
    static void verify(BlockDevice d, CliArguments a, PrintStream out) throws IOException, CliFailure {
        int blockSize = d.capacity().blockSize();
        try (FileSource file = a.in() == null ? null : new FileSource(a.in())) {
            DataSource source = file != null ? file : a.dataPattern();
            d.read(a.lba(), a.blocks(), (c, actual) -> {
                byte[] expected = new byte[actual.length];
                source.next(expected, expected.length);
                int i = Arrays.mismatch(actual, expected);
                if (i >= 0) {
                    throw miscompare(c, i, blockSize, expected[i], actual[i]);
                }
            });
        }
        out.println("verify ok: " + a.blocks() + " blocks at LBA " + a.lba());
    }

    private static CliFailure miscompare(Chunk c, int i, int blockSize, byte expected, byte actual) {
        long offset = c.offset() + i;
        return new CliFailure(CliFailure.MISCOMPARE, String.format(
                "miscompare at byte offset %d (LBA %d, byte %d): expected 0x%02x, read 0x%02x", offset,
                c.lba() + i / blockSize, i % blockSize, expected & 0xff, actual & 0xff));
    }
}
