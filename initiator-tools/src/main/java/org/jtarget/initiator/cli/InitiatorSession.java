package org.jtarget.initiator.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jtarget.initiator.iser.IserChannel;
import org.jtarget.initiator.raw.ChapCredentials;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * One logged-in iSCSI session for one CLI command: connects, logs in (CHAP when the URL has
 * credentials, CRC32C digests with {@code --digests}), turns SCSI outcomes into {@link CliFailure}s,
 * and logs out on close.
 */
public final class InitiatorSession implements AutoCloseable {

    private final RawIscsiClient client;
    private final int lun;

    private InitiatorSession(RawIscsiClient client, int lun) {
        this.client = client;
        this.lun = lun;
    }

    /** Opens a Normal session on the URL's target, or a Discovery session for {@code discover}. */
    public static InitiatorSession open(CliArguments args) throws IOException, CliFailure {
        return open(args.url(), args.initiatorName(), args.digests(), args.timeout());
    }

    /**
     * Opens a Normal session on {@code url}'s target (a Discovery session when the URL names no
     * target) as {@code initiatorName}, with CRC32C digests when {@code digests}; every read waits at
     * most {@code timeout}.
     */
    public static InitiatorSession open(IscsiUrl url, String initiatorName, boolean digests, Duration timeout)
            throws IOException, CliFailure {
        RawIscsiClient client = connect(url, timeout, 1, Chunk.MAX_CHUNK_BYTES);
        try {
            ChapCredentials chap = url.hasCredentials() ? new ChapCredentials(url.user(), url.secret()) : null;
            LoginResult login = url.target() == null
                    ? client.discoveryLogin(initiatorName, chap)
                    : client.login(initiatorName, url.target(), operationalKeys(digests), chap);
            if (!login.succeeded()) {
                throw new CliFailure(CliFailure.LOGIN_FAILED, "login failed: "
                        + LoginStatusText.describe(login.statusClass(), login.statusDetail()));
            }
            if (url.target() != null) {
                client.testUnitReadyClearingUnitAttention(url.lun()); // SAM-5 5.14: a new nexus sees power-on UA
            }
            return new InitiatorSession(client, url.lun());
        } catch (IOException | CliFailure | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /**
     * A connection to {@code url}'s portal: TCP for iscsi://, an iSER connection over the iwarp
     * provider for iser:// with registered buffers for {@code commands} commands in flight of up to
     * {@code largestTransfer} bytes each.
     */
    public static RawIscsiClient connect(IscsiUrl url, Duration timeout, int commands, int largestTransfer)
            throws IOException {
        if (!url.iser()) {
            return RawIscsiClient.connect(url.host(), url.port(), timeout);
        }
        return RawIscsiClient.over(IserChannel.connect(url.host(), url.port(), timeout, commands, largestTransfer));
    }

    private static Map<String, String> operationalKeys(boolean digests) {
        return digests ? RawIscsiClient.digestOperationalKeys(true, true)
                : RawIscsiClient.defaultOperationalKeys();
    }

    /** SendTargets=All: the key=value pairs in order (RFC 7143 12.3). */
    public List<String> sendTargets() throws IOException {
        return client.sendTargets();
    }

    /** Runs a command as is (no status check). */
    public ScsiResult execute(byte[] cdb, int readLength) throws IOException {
        return client.execute(lun, cdb, readLength);
    }

    /** Runs a Data-In command and returns its data; a bad status is a {@link CliFailure}. */
    public byte[] dataIn(byte[] cdb, int readLength, String what) throws IOException, CliFailure {
        return check(client.execute(lun, cdb, readLength), what).data();
    }

    /** Runs a Data-Out command; a bad status is a {@link CliFailure}. */
    public void dataOut(byte[] cdb, byte[] data, String what) throws IOException, CliFailure {
        check(client.execute(lun, cdb, data), what);
    }

    /** CHECK CONDITION is exit 4 with the sense in words; any other failure is exit 5. */
    public static ScsiResult check(ScsiResult r, String what) throws CliFailure {
        if (r.good()) {
            return r;
        }
        if (r.response() == 0 && r.status() == ScsiResult.CHECK_CONDITION) {
            throw new CliFailure(CliFailure.CHECK_CONDITION, what + ": CHECK CONDITION: "
                    + SenseText.describe(r.senseKey(), r.additionalSenseCode(), r.additionalSenseCodeQualifier()));
        }
        throw new CliFailure(CliFailure.IO_ERROR, String.format("%s failed: SCSI status 0x%02x, iSCSI response 0x%02x",
                what, r.status(), r.response()));
    }

    /** READ CAPACITY (16), or (10) when the target rejects (16). */
    public Capacity capacity() throws IOException, CliFailure {
        return Commands.capacity(this);
    }

    /** Closes the connection without a Logout (after the connection failed: nothing would answer). */
    public void abort() throws IOException {
        client.close();
    }

    /** Logs out (best effort) and closes the connection. */
    @Override
    public void close() throws IOException {
        try {
            if (client.isOpen()) {
                client.logout();
            }
        } catch (IOException e) {
            // the connection is going away anyway
        } finally {
            client.close();
        }
    }
}
