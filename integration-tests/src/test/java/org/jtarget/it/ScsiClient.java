package org.jtarget.it;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import org.jtarget.initiator.raw.ProtocolErrorOutcome;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.jtarget.initiator.srp.SrpChannel;

/**
 * A logged-in I_T nexus that runs SCSI commands, whatever the fabric: an iSCSI session over TCP or
 * iSER ({@link RawIscsiClient}) or an SRP RDMA channel ({@link SrpChannel}). The SCSI command tests
 * that run over every fabric ({@link ScsiTransport}) are written against this; one command at a
 * time. Residuals are signed as {@link ScsiResult} says (negative: overflow).
 */
interface ScsiClient extends AutoCloseable {

    /** SPC-4 4.5.6: the sense key of a unit attention. */
    int UNIT_ATTENTION = 0x6;

    /** Runs a command with no data or with data-in of up to {@code readLength} bytes. */
    ScsiResult execute(int lun, byte[] cdb, int readLength) throws IOException;

    /** Runs a command whose data-out is {@code writeData}. */
    ScsiResult execute(int lun, byte[] cdb, byte[] writeData) throws IOException;

    /**
     * Ends the nexus from the initiator's side: over iSCSI a Logout, failing unless the Logout
     * Response says "closed" (0); over SRP an SRP_I_LOGOUT (r16a 6.12 has no answer to it), then the
     * disconnect.
     */
    void logout() throws IOException;

    /**
     * Waits at most {@code timeout} for the target to end the nexus of its own accord (a shutdown,
     * a reload) and says how it went: {@link TargetEnd#ended()} when it ended the way the fabric
     * ends it: over iSCSI the connection closed (not a Reject, RFC 7143 7.); over SRP an
     * SRP_T_LOGOUT and then the disconnect (r16a 6.13). Sends nothing.
     */
    TargetEnd awaitTargetEnd(Duration timeout) throws IOException;

    /**
     * What {@link #awaitTargetEnd} saw.
     *
     * @param ended whether the target ended the nexus as its fabric does
     * @param how   what arrived, for an assertion's message
     */
    record TargetEnd(boolean ended, String how) {
    }

    @Override
    void close() throws IOException;

    /** READ (10) of {@code blocks} blocks of {@code blockSize} bytes. */
    default ScsiResult read10(int lun, long lba, int blocks, int blockSize) throws IOException {
        return execute(lun, ScsiCdbs.read10(lba, blocks), blocks * blockSize);
    }

    /** WRITE (10) of {@code data} (a whole number of {@code blockSize} blocks). */
    default ScsiResult write10(int lun, long lba, byte[] data, int blockSize) throws IOException {
        return execute(lun, ScsiCdbs.write10(lba, data.length / blockSize), data);
    }

    /** UNMAP (SBC-4 5.32) of {@code blocks} blocks from {@code lba}: one block descriptor. */
    default ScsiResult unmap(int lun, long lba, int blocks) throws IOException {
        ByteBuffer list = ByteBuffer.allocate(24);
        list.putShort((short) 22).putShort((short) 16).putInt(0); // data length, descriptor data length
        list.putLong(lba).putInt(blocks).putInt(0);
        byte[] cdb = new byte[10];
        cdb[0] = 0x42;
        cdb[8] = 24; // PARAMETER LIST LENGTH
        return execute(lun, cdb, list.array());
    }

    /** SYNCHRONIZE CACHE (10) of the whole LU. */
    default ScsiResult synchronizeCache(int lun) throws IOException {
        return execute(lun, new byte[] {0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0);
    }

    /** TEST UNIT READY. */
    default ScsiResult testUnitReady(int lun) throws IOException {
        return execute(lun, ScsiCdbs.testUnitReady(), 0);
    }

    /** TEST UNIT READY repeated while it answers UNIT ATTENTION, at most 8 times; the last answer. */
    default ScsiResult testUnitReadyClearingUnitAttention(int lun) throws IOException {
        ScsiResult r = testUnitReady(lun);
        for (int i = 0; i < 7 && r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == UNIT_ATTENTION; i++) {
            r = testUnitReady(lun);
        }
        return r;
    }

    /** INQUIRY: the standard data or, with {@code evpd}, VPD page {@code page}. */
    default ScsiResult inquiry(int lun, boolean evpd, int page, int allocationLength) throws IOException {
        return execute(lun, ScsiCdbs.inquiry(evpd, page, allocationLength), allocationLength);
    }

    /** The length of the LU's NAA designator in VPD 83h (NAA IEEE Registered Extended, SPC-4 7.8.6.6.5). */
    int NAA_LENGTH = 16;

    /**
     * The LU's NAA designator (16 bytes, logical-unit association, designator type 3) from INQUIRY
     * VPD 83h (SPC-4 7.8.6): 4-byte page header, then descriptors of 1 CODE SET | 1 PIV ASSOCIATION
     * DESIGNATOR TYPE | 1 reserved | 1 DESIGNATOR LENGTH | designator. Fails if there is none.
     */
    default byte[] naaDesignator(int lun) throws IOException {
        ScsiResult r = inquiry(lun, true, 0x83, 255);
        if (!r.good()) {
            throw new AssertionError("INQUIRY VPD 83h of LUN " + lun + ": " + r);
        }
        byte[] page = r.data();
        int end = Math.min(page.length, 4 + ((page[2] & 0xFF) << 8 | page[3] & 0xFF));
        for (int at = 4; at + 4 <= end; at += 4 + (page[at + 3] & 0xFF)) {
            int typeAndAssociation = page[at + 1] & 0x3F;
            if (typeAndAssociation == 0x03 && (page[at + 3] & 0xFF) == NAA_LENGTH) {
                return Arrays.copyOfRange(page, at + 4, at + 4 + NAA_LENGTH);
            }
        }
        throw new AssertionError("no 16-byte NAA LU designator in VPD 83h of LUN " + lun + ": "
                + HexFormat.of().formatHex(page));
    }

    /** The unit serial number from INQUIRY VPD 80h (SPC-4 7.8.17), from byte 4; fails if the command does. */
    default String unitSerialNumber(int lun) throws IOException {
        ScsiResult r = inquiry(lun, true, 0x80, 255);
        if (!r.good()) {
            throw new AssertionError("INQUIRY VPD 80h of LUN " + lun + ": " + r);
        }
        int length = ByteBuffer.wrap(r.data()).getShort(2) & 0xFFFF;
        return new String(r.data(), 4, length, StandardCharsets.US_ASCII).strip();
    }

    /** An iSCSI session (logged in) as a client. */
    static ScsiClient of(RawIscsiClient session) {
        return new ScsiClient() {
            @Override
            public ScsiResult execute(int lun, byte[] cdb, int readLength) throws IOException {
                return session.execute(lun, cdb, readLength);
            }

            @Override
            public ScsiResult execute(int lun, byte[] cdb, byte[] writeData) throws IOException {
                return session.execute(lun, cdb, writeData);
            }

            @Override
            public void logout() throws IOException {
                int response = session.logout();
                if (response != 0) {
                    throw new IOException("Logout Response code " + response + " (0: closed)");
                }
            }

            @Override
            public TargetEnd awaitTargetEnd(Duration timeout) throws IOException {
                ProtocolErrorOutcome end = session.awaitRejectOrClose(timeout);
                return new TargetEnd(end.kind() == ProtocolErrorOutcome.Kind.CLOSED, end.toString());
            }

            @Override
            public void close() throws IOException {
                session.close();
            }
        };
    }

    /** An SRP channel (logged in) as a client. */
    static ScsiClient of(SrpChannel channel) {
        return new ScsiClient() {
            @Override
            public ScsiResult execute(int lun, byte[] cdb, int readLength) throws IOException {
                return channel.execute(lun, cdb, readLength, null);
            }

            @Override
            public ScsiResult execute(int lun, byte[] cdb, byte[] writeData) throws IOException {
                return channel.execute(lun, cdb, 0, writeData);
            }

            @Override
            public void logout() {
                channel.logout();
            }

            /**
             * An SRP_T_LOGOUT ends the first {@code awaitResponse} with an EOFException, the
             * disconnect the second with false.
             */
            @Override
            public TargetEnd awaitTargetEnd(Duration timeout) throws IOException {
                long deadline = System.nanoTime() + timeout.toNanos();
                channel.readTimeout(timeout);
                String logout;
                try {
                    return new TargetEnd(false, channel.awaitResponse() ? "an SRP_RSP with no command outstanding"
                            : "the disconnect without an SRP_T_LOGOUT");
                } catch (EOFException e) {
                    logout = e.getMessage();
                } catch (SocketTimeoutException e) {
                    return new TargetEnd(false, e.getMessage());
                }
                channel.readTimeout(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                try {
                    boolean more = channel.awaitResponse();
                    return new TargetEnd(!more, logout + (more ? ", then an SRP_RSP" : ", then the disconnect"));
                } catch (EOFException | SocketTimeoutException e) {
                    return new TargetEnd(false, logout + ", then " + e.getMessage());
                }
            }

            @Override
            public void close() {
                channel.close();
            }
        };
    }
}
