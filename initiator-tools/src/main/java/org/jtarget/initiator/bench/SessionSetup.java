package org.jtarget.initiator.bench;

import java.io.IOException;
import java.util.Map;
import org.jtarget.initiator.cli.Capacity;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.InitiatorSession;
import org.jtarget.initiator.cli.LoginStatusText;
import org.jtarget.initiator.raw.ChapCredentials;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * Opens the benchmark's sessions (the control path, before the clock starts): connect, log in
 * with {@code ImmediateData=Yes} and bursts large enough for 1 MiB commands (RFC 7143 13.11,
 * 13.13, 13.14; the target may lower them), clear the new nexus's UNIT ATTENTION, and read the
 * capacity once.
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

    /** A logged-in Normal session on the URL's LU, UNIT ATTENTION cleared; exit 3 if login fails. */
    static RawIscsiClient open(BenchArguments a) throws IOException, CliFailure {
        // over iSER: one registered data slot per queue slot, each as large as a command's transfer
        RawIscsiClient client = InitiatorSession.connect(a.url(), a.timeout(), a.queueDepth(), a.blockBytes());
        try {
            ChapCredentials chap = a.url().hasCredentials()
                    ? new ChapCredentials(a.url().user(), a.url().secret()) : null;
            LoginResult login = client.login(a.initiatorName(), a.url().target(), operationalKeys(a.digests()), chap);
            if (!login.succeeded()) {
                throw new CliFailure(CliFailure.LOGIN_FAILED, "login failed: "
                        + LoginStatusText.describe(login.statusClass(), login.statusDetail()));
            }
            InitiatorSession.check(client.testUnitReadyClearingUnitAttention(a.url().lun()), "TEST UNIT READY");
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
            InitiatorSession.check(r16, "READ CAPACITY (16)");
        }
        ScsiResult r10 = client.execute(lun, ScsiCdbs.readCapacity10(), Capacity.RC10_LENGTH);
        return Capacity.decode10(InitiatorSession.check(r10, "READ CAPACITY (10)").data());
    }
}
