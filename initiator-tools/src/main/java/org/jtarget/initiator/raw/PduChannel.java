package org.jtarget.initiator.raw;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;

/**
 * How {@link RawIscsiClient} moves its PDUs: over a TCP connection ({@link TcpPduChannel}, RFC
 * 7143) or in RDMA SENDs behind iSER headers (RFC 7145, {@code org.jtarget.initiator.iser}). The
 * session logic (login, CmdSN, tasks) is the client's and the same over both; a channel only frames
 * PDUs, says which login keys its transport adds, and, for iSER, offers {@link DirectData}: a
 * command's data placed by the target in registered buffers instead of Data-In/R2T/Data-Out PDUs.
 */
public interface PduChannel extends AutoCloseable {

    /**
     * Sends one PDU with the digests in use ({@code corrupt}: see {@link RawPdu#toBytes(boolean,
     * boolean, IscsiDigest.Kind)}).
     */
    void send(RawPdu pdu, boolean headerDigest, boolean dataDigest, IscsiDigest.Kind corrupt) throws IOException;

    /** Sends arbitrary bytes as they are (garbage and truncated PDUs for negative tests). */
    void sendBytes(byte[] bytes) throws IOException;

    /**
     * The next PDU, or {@code null} when the target closed the connection.
     *
     * @throws SocketTimeoutException when nothing arrives within the read timeout
     */
    RawPdu read(int maxDataSegmentLength, boolean headerDigest, boolean dataDigest) throws IOException;

    /** Sets how long {@link #read} waits before {@link SocketTimeoutException}. */
    void readTimeout(Duration timeout) throws IOException;

    /** Half-closes the connection where the transport can (TCP); closes it otherwise. */
    void shutdownOutput() throws IOException;

    /** Whether the connection is still open on our side. */
    boolean isOpen();

    /**
     * The operational keys to offer in a Normal session's login, from the keys the caller chose:
     * the transport's own keys added, the ones it makes irrelevant taken out.
     */
    default Map<String, String> operationalKeys(Map<String, String> chosen) {
        return chosen;
    }

    /** Data placed directly in registered buffers (iSER), or null when data travels in PDUs (TCP). */
    default DirectData directData() {
        return null;
    }

    /**
     * The channel's event-driven mode (iSER over the iwarp provider), or null when it has none
     * (TCP: the caller's thread reads and writes the socket itself).
     */
    default Driven driven() {
        return null;
    }

    @Override
    void close() throws IOException;

    /**
     * A load loop run on the thread that moves the connection's bytes (the iwarp provider's event
     * loop): PDUs are taken there as they complete and commands posted there leave with that
     * thread's next write, so a command costs no hand-over between the caller's thread and the
     * provider's (two thread wake-ups each way otherwise).
     */
    interface Driven {

        /**
         * Runs {@code step} on the connection's I/O thread, again each time PDUs may have arrived,
         * until it returns true; the caller's thread waits meanwhile. Only {@code step} uses the
         * channel until this returns; what it did is then visible to the caller.
         *
         * @throws java.net.SocketTimeoutException when nothing arrives within the read timeout while
         *                                         {@code step} waits for a PDU
         * @throws IOException                     what {@code step} threw, or the connection ended
         */
        void drive(Step step) throws IOException;

        /**
         * Inside {@link #drive}'s step only: the next PDU received, or null if none is there yet
         * (never waits).
         *
         * @throws java.io.EOFException when the target closed the connection
         */
        RawPdu poll(int maxDataSegmentLength) throws IOException;
    }

    /** One turn of a {@link Driven} loop: handles what {@link Driven#poll} has; true when the loop is done. */
    @FunctionalInterface
    interface Step {
        boolean run() throws IOException;
    }

    /**
     * A command's data moved by the target with RDMA (RFC 7145): each of {@link #slots()} buffers of
     * {@link #slotBytes()} bytes serves one command in flight; a SCSI Command sent through
     * {@link #sendCommand} names its slot's memory in the iSER header, the target RDMA READs the
     * Data-Out from it and RDMA WRITEs the Data-In into it, then sends the SCSI Response.
     */
    interface DirectData {

        /** Commands that can be in flight at once. */
        int slots();

        /** The largest transfer of one command. */
        int slotBytes();

        /** Copies {@code length} bytes of {@code from} into {@code slot}, the Data-Out of its next command. */
        void stage(int slot, byte[] from, int offset, int length);

        /** Copies the first {@code length} bytes of {@code slot} (Data-In placed by the target) into {@code into}. */
        void take(int slot, byte[] into, int offset, int length);

        /**
         * Sends a SCSI Command whose Data-In ({@code readLength} bytes) or Data-Out ({@code writeLength}
         * bytes, staged before) moves through {@code slot}.
         */
        void sendCommand(RawPdu command, int slot, int readLength, int writeLength) throws IOException;
    }
}
