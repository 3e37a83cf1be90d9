package org.jtarget.initiator.cli;

/** {@code xxd}-like lines: address, 16 bytes in hex, then the printable ASCII. */
public final class HexDump {

    public static final int BYTES_PER_LINE = 16;

    private HexDump() {
    }

    /** Dumps {@code d[from..to)}; addresses start at {@code baseAddress}. */
    public static String format(byte[] d, int from, int to, long baseAddress) {
        StringBuilder sb = new StringBuilder();
        for (int line = from; line < to; line += BYTES_PER_LINE) {
            appendLine(sb, d, line, Math.min(to, line + BYTES_PER_LINE), baseAddress + (line - from));
        }
        return sb.toString();
    }

    private static void appendLine(StringBuilder sb, byte[] d, int from, int to, long address) {
        sb.append(String.format("%08x:", address));
        for (int i = from; i < from + BYTES_PER_LINE; i++) {
            if (i < to) {
                sb.append(' ').append(Character.forDigit((d[i] >>> 4) & 0xf, 16))
                        .append(Character.forDigit(d[i] & 0xf, 16));
            } else {
                sb.append("   ");
            }
        }
        sb.append("  ");
        for (int i = from; i < to; i++) {
            int c = d[i] & 0xff;
            sb.append(c >= 0x20 && c < 0x7f ? (char) c : '.');
        }
        sb.append('\n');
    }
}
