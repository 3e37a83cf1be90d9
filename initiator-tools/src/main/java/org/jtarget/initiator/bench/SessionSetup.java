package org.jtarget.initiator.bench;

import java.io.IOException;
import java.util.Map;
import org.jtarget.initiator.cli.Capacity;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.InitiatorSession;
import org.jtarget.initiator.cli.IscsiUrl;
import org.jtarget.initiator.cli.LoginStatusText;
import org.jtarget.initiator.cli.ScsiSession;
import org.jtarget.initiator.cli.SrpSession;
import org.jtarget.initiator.cli.SrpUrl;
import org.jtarget.initiator.raw.ChapCredentials;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * Opens the benchmark's sessions (the control path, before the clock starts): connect, log in, clear
 * the new nexus's UNIT ATTENTION, and read the capacity once. An iSCSI session offers
 * {@code ImmediateData=Yes} and bursts large enough for 1 MiB commands (RFC 7143 13.11, 13.13,
 * 13.14; the target may lower them); an SRP channel has a registered data slot per queue slot,
 * and every channel after the first joins the first one's I_T nexus (r16a MULTI-CHANNEL ACTION 1),
 * as ib_srp's channels of one target do.
 */
final class SessionSetup {

    /** Offered FirstBurstLength: a whole 256 KiB write can ride in the command PDU. */
    static final String FIRST_BURST = "262144";
    /** Offered MaxBurstLength: a 1 MiB write needs one R2T after its immediate data. */
    static final String MAX_BURST = "1048576";
    private static final int ILLEGAL_REQUEST = 0x5;

    private SessionSetup() {
    }

    /** The operational keys a bench session offers. */
    static Map<String, String> operationalKeys(boolean digests) {
        Map<String, String> keys = digests ? RawIscsiClient.digestOperationalKeys(true, true)
                : RawIscsiClient.defaultOperationalKeys();
        keys.put("ImmediateData", "Yes");
        keys.put("FirstBurstLength", FIRST_BURST);
        keys.put("MaxBurstLength", MAX_BURST);
        return keys;
    }

    /** One logged-in connection of a bench run: its LU's capacity, then its load loop. */
    interface Connection extends AutoCloseable {

        Capacity capacity() throws IOException, CliFailure;

        /** The load loop of session {@code index}, which owns the connection from then on. */
        BenchSession session(int index, SessionPlan plan) throws IOException;

        @Override
        void close();
    }

    /** Session {@code index} (0 first) on the URL's LU, UNIT ATTENTION cleared; exit 3 if login fails. */
    static Connection open(BenchArguments a, int index) throws IOException, CliFailure {
        return switch (a.url()) {
            case IscsiUrl url -> new Iscsi(iscsi(a, url), url.lun());
            case SrpUrl url -> new Srp(SrpSession.open(url, a.initiatorName(), a.timeout(), a.queueDepth(),
                    a.blockBytes(), index > 0));
        };
    }

    private record Iscsi(RawIscsiClient client, int lun) implements Connection {

        @Override
        public Capacity capacity() throws IOException, CliFailure {
            return SessionSetup.capacity(client, lun);
        }

        @Override
        public BenchSession session(int index, SessionPlan plan) throws IOException {
            return new IscsiBenchSession(index, client, plan);
        }

        @Override
        public void close() {
            try {
                client.close();
            } catch (IOException e) {
                // nothing left to do with it
            }
        }
    }

    /** The session's TEST UNIT READYs already ran on open ({@link SrpSession#open}). */
    private record Srp(SrpSession session) implements Connection {

        @Override
        public Capacity capacity() throws IOException, CliFailure {
            return session.capacity();
        }

        @Override
        public BenchSession session(int index, SessionPlan plan) {
            return new SrpBenchSession(index, session, plan);
        }

        @Override
        public void close() {
            session.abort();
        }
    }

    /** A logged-in Normal session on the URL's LU, UNIT ATTENTION cleared; exit 3 if login fails. */
    private static RawIscsiClient iscsi(BenchArguments a, IscsiUrl url) throws IOException, CliFailure {
        // over iSER: one registered data slot per queue slot, each as large as a command's transfer
        RawIscsiClient client = InitiatorSession.connect(url, a.timeout(), a.queueDepth(), a.blockBytes());
        try {
            ChapCredentials chap = url.hasCredentials() ? new ChapCredentials(url.user(), url.secret()) : null;
            LoginResult login = client.login(a.initiatorName(), url.target(), operationalKeys(a.digests()), chap);
            if (!login.succeeded()) {
                throw new CliFailure(CliFailure.LOGIN_FAILED, "login failed: "
                        + LoginStatusText.describe(login.statusClass(), login.statusDetail()));
            }
            ScsiSession.check(client.testUnitReadyClearingUnitAttention(url.lun()), "TEST UNIT READY");
            return client;
        } catch (IOException | CliFailure | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** READ CAPACITY (16), or (10) when the target rejects (16) (SBC-4 5.20, 5.21). */
    static Capacity capacity(RawIscsiClient client, int lun) throws IOException, CliFailure {
        ScsiResult r16 = client.execute(lun, ScsiCdbs.readCapacity16(Capacity.RC16_LENGTH), Capacity.RC16_LENGTH);
        if (r16.good()) {
            return Capacity.decode16(r16.data());
        }
        if (r16.status() != ScsiResult.CHECK_CONDITION || r16.senseKey() != ILLEGAL_REQUEST) {
            ScsiSession.check(r16, "READ CAPACITY (16)");
        }
        ScsiResult r10 = client.execute(lun, ScsiCdbs.readCapacity10(), Capacity.RC10_LENGTH);
        return Capacity.decode10(ScsiSession.check(r10, "READ CAPACITY (10)").data());
    }
}
