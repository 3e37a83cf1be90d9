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
 * One logged-in iSCSI session for one CLI command, as a {@link ScsiSession}: connects over TCP or
 * iSER, logs in (CHAP when the URL has credentials, CRC32C digests with {@code --digests}), and
 * logs out on close. Also the Discovery session of {@code discover}.
 */
public final class InitiatorSession implements ScsiSession {

    private final RawIscsiClient client;
    private final int lun;

    private InitiatorSession(RawIscsiClient client, int lun) {
        this.client = client;
        this.lun = lun;
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

    @Override
    public ScsiResult execute(byte[] cdb, int readLength) throws IOException {
        return client.execute(lun, cdb, readLength);
    }

    @Override
    public ScsiResult execute(byte[] cdb, byte[] writeData) throws IOException {
        return client.execute(lun, cdb, writeData);
    }

    @Override
    public void abort() throws IOException {
        client.close();
    }

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
