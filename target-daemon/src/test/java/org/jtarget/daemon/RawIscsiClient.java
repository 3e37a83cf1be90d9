package org.jtarget.daemon;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The smallest iSCSI initiator a test needs: one session of one connection, login straight into the
 * operational stage (no authentication), WRITE(10) and READ(10) with R2T/Data-Out and Data-In, and
 * logout. It builds every PDU by hand from RFC 7143 section 11, so it depends on nothing of the
 * daemon (initiator-tools cannot be used: it depends on target-daemon).
 */
public final class RawIscsiClient implements Closeable {

    static final int BHS = 48;
    private static final int OP_SCSI_COMMAND = 0x01;
    private static final int OP_LOGIN_REQUEST = 0x03;
    private static final int OP_DATA_OUT = 0x05;
    private static final int OP_LOGOUT_REQUEST = 0x06;
    private static final int OP_NOP_IN = 0x20;
    private static final int OP_SCSI_RESPONSE = 0x21;
    private static final int OP_LOGIN_RESPONSE = 0x23;
    private static final int OP_DATA_IN = 0x25;
    private static final int OP_LOGOUT_RESPONSE = 0x26;
    private static final int OP_R2T = 0x31;
    private static final int IMMEDIATE = 0x40;
    private static final int FINAL = 0x80;
    private static final int OUR_MAX_RECV_DATA_SEGMENT = 262144;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int itt;
    private int cmdSn = 1;
    private int expStatSn;
    private int peerMaxRecvDataSegment = 8192; // RFC 7143 13.12: the default until the target declares one

    public RawIscsiClient(InetSocketAddress portal) throws IOException {
        socket = new Socket();
        socket.connect(portal, 10_000);
        socket.setSoTimeout(30_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Logs in to {@code target} in one step, operational stage to full feature phase. */
    public void login(String initiator, String target) throws IOException {
        byte[] keys = text("InitiatorName=" + initiator, "SessionType=Normal", "TargetName=" + target,
                "HeaderDigest=None", "DataDigest=None", "MaxRecvDataSegmentLength=" + OUR_MAX_RECV_DATA_SEGMENT);
        ByteBuffer bhs = header(OP_LOGIN_REQUEST | IMMEDIATE, keys.length);
        bhs.put(1, (byte) (FINAL | (1 << 2) | 3)); // Transit, CSG operational (1), NSG full feature (3)
        bhs.put(8, new byte[] {(byte) 0x80, 0x00, 0x13, 0x37, 0x00, 0x01}); // ISID: random format
        bhs.putInt(16, itt++);
        bhs.putInt(24, cmdSn).putInt(28, expStatSn);
        send(bhs, keys);
        Pdu r = receive();
        check(r.opcode() == OP_LOGIN_RESPONSE, "login response expected, got " + r);
        check(r.bhs[36] == 0, "login refused: status class " + r.bhs[36] + " detail " + r.bhs[37]);
        check((r.bhs[1] & 0xff) == (FINAL | (1 << 2) | 3), "login did not reach full feature phase: " + r);
        expStatSn = r.intAt(24) + 1;
        for (String kv : new String(r.data, StandardCharsets.US_ASCII).split("\0")) {
            if (kv.startsWith("MaxRecvDataSegmentLength=")) {
                peerMaxRecvDataSegment = Integer.parseInt(kv.substring(kv.indexOf('=') + 1));
            }
        }
    }

    /** WRITE(10) of {@code data} at {@code lba} on {@code lun}, all of it solicited by R2T; returns the status. */
    public int write(int lun, long lba, int blockSize, byte[] data) throws IOException {
        return dataOut(lun, cdb10(0x2A, lba, data.length / blockSize), data);
    }

    /** A command with {@code cdb} (16 bytes at most) sending {@code data}, all of it solicited by R2T; returns the status. */
    public int dataOut(int lun, byte[] cdb, byte[] data) throws IOException {
        int task = itt++;
        send(command(0x20, lun, task, data.length, java.util.Arrays.copyOf(cdb, 16)), new byte[0]);
        while (true) {
            Pdu r = receive();
            switch (r.opcode()) {
                case OP_R2T -> sendDataOut(lun, task, r.intAt(20), r.intAt(40), r.intAt(44), data);
                case OP_SCSI_RESPONSE -> {
                    return response(r);
                }
                case OP_NOP_IN -> { }
                default -> throw new IOException("unexpected PDU during a data-out command: " + r);
            }
        }
    }

    /** READ(10) of {@code into.length} bytes at {@code lba} on {@code lun}; returns the status. */
    public int read(int lun, long lba, int blockSize, byte[] into) throws IOException {
        int task = itt++;
        send(command(0x40, lun, task, into.length, cdb10(0x28, lba, into.length / blockSize)), new byte[0]);
        while (true) {
            Pdu r = receive();
            switch (r.opcode()) {
                case OP_DATA_IN -> {
                    System.arraycopy(r.data, 0, into, r.intAt(40), r.data.length);
                    if ((r.bhs[1] & 0x01) != 0) { // S: the status came with the data
                        expStatSn = r.intAt(24) + 1;
                        return r.bhs[3] & 0xff;
                    }
                }
                case OP_SCSI_RESPONSE -> {
                    return response(r);
                }
                case OP_NOP_IN -> { }
                default -> throw new IOException("unexpected PDU during READ: " + r);
            }
        }
    }

    /** Closes the session (logout reason 0) and waits for the target's answer. */
    void logout() throws IOException {
        ByteBuffer bhs = header(OP_LOGOUT_REQUEST | IMMEDIATE, 0);
        bhs.put(1, (byte) FINAL);
        bhs.putInt(16, itt++).putInt(24, cmdSn).putInt(28, expStatSn);
        send(bhs, new byte[0]);
        Pdu r = receive();
        check(r.opcode() == OP_LOGOUT_RESPONSE && r.bhs[2] == 0, "logout failed: " + r);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private void sendDataOut(int lun, int task, int ttt, int offset, int length, byte[] data) throws IOException {
        int dataSn = 0;
        for (int done = 0; done < length; ) {
            int n = Math.min(peerMaxRecvDataSegment, length - done);
            ByteBuffer bhs = header(OP_DATA_OUT, n);
            bhs.put(1, (byte) (done + n == length ? FINAL : 0));
            bhs.put(9, (byte) lun);
            bhs.putInt(16, task).putInt(20, ttt).putInt(28, expStatSn);
            bhs.putInt(36, dataSn++).putInt(40, offset + done);
            send(bhs, Arrays.copyOfRange(data, offset + done, offset + done + n));
            done += n;
        }
    }

    private ByteBuffer command(int direction, int lun, int task, int length, byte[] cdb) {
        ByteBuffer bhs = header(OP_SCSI_COMMAND, 0);
        bhs.put(1, (byte) (FINAL | direction | 1)); // task attribute SIMPLE
        bhs.put(9, (byte) lun); // single-level LUN, peripheral addressing
        bhs.putInt(16, task).putInt(20, length).putInt(24, cmdSn++).putInt(28, expStatSn);
        bhs.put(32, cdb);
        return bhs;
    }

    private static byte[] cdb10(int opcode, long lba, int blocks) {
        ByteBuffer cdb = ByteBuffer.allocate(16);
        cdb.put(0, (byte) opcode).putInt(2, (int) lba).putShort(7, (short) blocks);
        return cdb.array();
    }

    private int response(Pdu r) throws IOException {
        check(r.bhs[2] == 0, "iSCSI response code " + r.bhs[2]);
        expStatSn = r.intAt(24) + 1;
        return r.bhs[3] & 0xff;
    }

    private static ByteBuffer header(int opcode, int dataLength) {
        ByteBuffer bhs = ByteBuffer.allocate(BHS);
        bhs.put(0, (byte) opcode);
        bhs.putInt(4, dataLength); // TotalAHSLength 0, then the 24-bit DataSegmentLength
        return bhs;
    }

    private void send(ByteBuffer bhs, byte[] data) throws IOException {
        out.write(bhs.array());
        out.write(data);
        out.write(new byte[-data.length & 3]);
        out.flush();
    }

    private Pdu receive() throws IOException {
        byte[] bhs = new byte[BHS];
        in.readFully(bhs);
        in.skipNBytes((bhs[4] & 0xff) * 4L);
        int length = ByteBuffer.wrap(bhs).getInt(4) & 0xffffff;
        byte[] data = new byte[length];
        in.readFully(data);
        in.skipNBytes(-length & 3);
        return new Pdu(bhs, data);
    }

    private static byte[] text(String... pairs) {
        return (String.join("\0", pairs) + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    private static void check(boolean ok, String why) throws IOException {
        if (!ok) {
            throw new IOException(why);
        }
    }

    private record Pdu(byte[] bhs, byte[] data) {
        int opcode() {
            return bhs[0] & 0x3f;
        }

        int intAt(int offset) {
            return ByteBuffer.wrap(bhs).getInt(offset);
        }

        @Override
        public String toString() {
            return "opcode 0x" + Integer.toHexString(opcode()) + " flags 0x" + Integer.toHexString(bhs[1] & 0xff)
                    + " data " + data.length;
        }
    }
}
