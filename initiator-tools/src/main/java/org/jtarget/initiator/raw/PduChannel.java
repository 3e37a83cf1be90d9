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

    @Override
    void close() throws IOException;

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
