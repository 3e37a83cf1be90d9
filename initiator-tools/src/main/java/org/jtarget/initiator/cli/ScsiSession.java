package org.jtarget.initiator.cli;

import java.io.IOException;
import java.time.Duration;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * A logged-in I_T nexus to one logical unit for one command line, whatever the transport: an iSCSI
 * session over TCP or iSER ({@link InitiatorSession}) or an SRP RDMA channel ({@link SrpSession}).
 * The SCSI level (CDBs, status checks, sense in words, the CLI's commands, crashcheck) is written
 * once against this; only the transport differs.
 */
public interface ScsiSession extends AutoCloseable {

    /** SPC-4 4.5.6: the sense key of a unit attention. */
    int UNIT_ATTENTION = 0x6;
    /** TEST UNIT READYs a new nexus sends at most to see its unit attentions through. */
    int UNIT_ATTENTION_TRIES = 8;

    /** Runs a command with no data or with data-in of up to {@code readLength} bytes (no status check). */
    ScsiResult execute(byte[] cdb, int readLength) throws IOException;

    /** Runs a command whose data-out is {@code writeData} (no status check). */
    ScsiResult execute(byte[] cdb, byte[] writeData) throws IOException;

    /** Closes the connection without a logout (after it failed: nothing would answer). */
    void abort() throws IOException;

    /** Logs out (best effort) and closes the connection. */
    @Override
    void close() throws IOException;

    /**
     * Opens a session on the logical unit of {@code url} as {@code initiatorName} (an IQN, or for
     * srp:// an SRP port name), with CRC32C digests when {@code digests} (iscsi:// only); every wait
     * lasts at most {@code timeout}. One command at a time of at most {@link Chunk#MAX_CHUNK_BYTES}.
     */
    static ScsiSession open(ScsiUrl url, String initiatorName, boolean digests, Duration timeout)
            throws IOException, CliFailure {
        return switch (url) {
            case IscsiUrl iscsi -> InitiatorSession.open(iscsi, initiatorName, digests, timeout);
            case SrpUrl srp -> SrpSession.open(srp, initiatorName, timeout, 1, Chunk.MAX_CHUNK_BYTES, false);
        };
    }

    /** Runs a data-in command and returns its data; a bad status is a {@link CliFailure}. */
    default byte[] dataIn(byte[] cdb, int readLength, String what) throws IOException, CliFailure {
        return check(execute(cdb, readLength), what).data();
    }

    /** Runs a data-out command; a bad status is a {@link CliFailure}. */
    default void dataOut(byte[] cdb, byte[] data, String what) throws IOException, CliFailure {
        check(execute(cdb, data), what);
    }

    /** READ CAPACITY (16), or (10) when the target rejects (16). */
    default Capacity capacity() throws IOException, CliFailure {
        return Commands.capacity(this);
    }

    /**
     * TEST UNIT READY repeated while it answers UNIT ATTENTION (SAM-5 5.14: a new I_T nexus may see
     * one per pending condition, e.g. power on or reset), at most {@link #UNIT_ATTENTION_TRIES}
     * times; returns the last answer.
     */
    default ScsiResult testUnitReadyClearingUnitAttention() throws IOException {
        ScsiResult r = execute(ScsiCdbs.testUnitReady(), 0);
        for (int i = 1; i < UNIT_ATTENTION_TRIES && r.status() == ScsiResult.CHECK_CONDITION
                && r.senseKey() == UNIT_ATTENTION; i++) {
            r = execute(ScsiCdbs.testUnitReady(), 0);
        }
        return r;
    }

    /** CHECK CONDITION is exit 4 with the sense in words; any other failure is exit 5. */
    static ScsiResult check(ScsiResult r, String what) throws CliFailure {
        if (r.good()) {
            return r;
        }
        if (r.response() == 0 && r.status() == ScsiResult.CHECK_CONDITION) {
            throw new CliFailure(CliFailure.CHECK_CONDITION, what + ": CHECK CONDITION: "
                    + SenseText.describe(r.senseKey(), r.additionalSenseCode(), r.additionalSenseCodeQualifier()));
        }
        throw new CliFailure(CliFailure.IO_ERROR, String.format("%s failed: SCSI status 0x%02x, response 0x%02x",
                what, r.status(), r.response()));
    }
}
