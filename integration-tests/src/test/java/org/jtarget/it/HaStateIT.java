package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.it.HaPair.BLOCK;
import static org.jtarget.it.HaPair.FILE_STORE;
import static org.jtarget.it.HaPair.IQN;
import static org.jtarget.it.HaPair.LOGIN_TIMEOUT;
import static org.jtarget.it.HaPair.LUN;
import static org.jtarget.it.HaPair.assertStandby;
import static org.jtarget.it.HaPair.pastUnitAttention;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.jtarget.it.HaPair.Node;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SCSI state of an HA pair's LU survives a failover (issue 17, docs/ha.md "SCSI state"): real
 * daemons a and b with a witness, heartbeat 200 ms / 1 s. Persistent reservations made through the
 * primary are the promoted secondary's, the ones made while the secondary was down included (it
 * gets the whole state when it rejoins), and they are enforced there for the same initiator ports.
 *
 * <p>Each initiator keeps its ISID across its sessions, as open-iscsi does per interface, so that
 * it is the same SCSI initiator port through a's portal and b's: that is what registrations name
 * (SPC-4 5.13.7; the target ports are a's and b's, relative target port 1 and 2).
 */
class HaStateIT {

    private static final String X = "iqn.2026-11.org.jtarget:ha-state-x";
    private static final String Y = "iqn.2026-11.org.jtarget:ha-state-y";
    private static final String Z = "iqn.2026-11.org.jtarget:ha-state-z";
    /** RFC 7143 10.12.5: ISID type 10b (random), a qualifier of 1; one per initiator. */
    private static final long ISID_X = 0x80_0000_0A01L;
    private static final long ISID_Y = 0x80_0000_0B01L;
    private static final long ISID_Z = 0x80_0000_0C01L;
    /** PERSISTENT RESERVE OUT service actions and types (SPC-4 6.16.2, 6.16.3.4). */
    private static final int REGISTER = 0x00;
    private static final int RESERVE = 0x01;
    private static final int WRITE_EXCLUSIVE_REGISTRANTS_ONLY = 0x5;
    private static final int ALL_TG_PT = 0x04;
    private static final int READ_KEYS = 0x00;
    private static final int READ_RESERVATION = 0x01;
    private static final int READ_FULL_STATUS = 0x03;
    private static final int RESERVATION_CONFLICT = 0x18;

    @TempDir
    Path dir;

    private HaPair pair;
    private Node a;
    private Node b;

    @BeforeEach
    void createPair() {
        pair = new HaPair(dir);
        a = pair.a;
        b = pair.b;
    }

    @AfterEach
    void stopAll(TestInfo test) throws IOException {
        pair.stop("HaStateIT", test);
    }

    @Test
    void reservationsMadeThroughThePrimaryHoldOnThePromotedSecondaryThoseMadeWhileItWasDownToo() throws Exception {
        pair.startWithWitness(FILE_STORE);
        pair.awaitLog(a, 0, inSync(a));

        byte[] keys;
        byte[] reservation;
        byte[] fullStatus;
        try (ScsiClient x = login(a, X, ISID_X); ScsiClient y = login(a, Y, ISID_Y)) {
            assertGood(prOut(x, REGISTER, 0, 0, 0xA1, ALL_TG_PT), "REGISTER of X through a");
            try (ScsiClient zb = login(b, Z, ISID_Z)) {
                // the secondary takes no state change: it would be lost, or differ from a's
                assertStandby(pastUnitAttention(() -> prOut(zb, REGISTER, 0, 0, 0xC1, 0)), "REGISTER through b");
                assertThat(pastUnitAttention(() -> prIn(zb, READ_KEYS)).good()).as("READ KEYS through b").isTrue();
            }

            int aMark = a.mark();
            b.kill();
            pair.awaitLog(a, aMark, Pattern.compile("HA link to b down"));
            assertGood(prOut(y, REGISTER, 0, 0, 0xB1, ALL_TG_PT), "REGISTER of Y through a, b down");
            assertGood(prOut(x, RESERVE, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, 0xA1, 0, 0), "RESERVE by X, b down");
            pair.awaitLog(a, aMark, Pattern.compile("serving alone \\(degraded\\)"));
            keys = data(prIn(x, READ_KEYS), "READ KEYS through a");
            reservation = data(prIn(x, READ_RESERVATION), "READ RESERVATION through a");
            fullStatus = data(prIn(x, READ_FULL_STATUS), "READ FULL STATUS through a");
            assertThat(ByteBuffer.wrap(keys).getInt(4)).as("two keys").isEqualTo(16);

            aMark = a.mark();
            b.start();
            pair.awaitLog(b, 0, Pattern.compile("HA node b: secondary"));
            pair.awaitLog(a, aMark, inSync(a));
        }

        int bMark = b.mark();
        a.kill();
        pair.awaitLog(b, bMark, Pattern.compile("HA node b: primary( \\(degraded\\))?, peer a not connected"));
        try (ScsiClient x = login(b, X, ISID_X); ScsiClient z = login(b, Z, ISID_Z)) {
            assertThat(data(prIn(z, READ_KEYS), "READ KEYS through b")).as("PRgeneration and keys through b, a dead")
                    .isEqualTo(keys);
            assertThat(data(prIn(z, READ_RESERVATION), "READ RESERVATION through b")).as("holder's key and type")
                    .isEqualTo(reservation);
            assertThat(data(prIn(z, READ_FULL_STATUS), "READ FULL STATUS through b"))
                    .as("registrations with their ports and ALL_TG_PT").isEqualTo(fullStatus);
            ScsiResult byZ = pastUnitAttention(() -> z.write10(LUN, 0, new byte[BLOCK], BLOCK));
            assertThat(byZ.status()).as("WRITE(10) by Z, not registered, through b: " + byZ)
                    .isEqualTo(RESERVATION_CONFLICT);
            ScsiResult byX = pastUnitAttention(() -> x.write10(LUN, 0, new byte[BLOCK], BLOCK));
            assertThat(byX.good()).as("WRITE(10) by X, a registrant for all target ports, through b: " + byX).isTrue();
            assertGood(prOut(z, REGISTER, 0, 0, 0xC1, 0), "REGISTER of Z through b, the primary now");
        }
    }

    /** A session through {@code n}'s portal from initiator {@code name} with ISID {@code isid}. */
    private static ScsiClient login(Node n, String name, long isid) throws IOException {
        RawIscsiClient session = RawIscsiClient.connect(DaemonProcess.HOST, n.portal, LOGIN_TIMEOUT).isid(isid);
        LoginResult login = session.login(name, IQN);
        assertThat(login.succeeded()).as("login of " + name + " to " + n.name + ": " + login).isTrue();
        ScsiClient c = ScsiClient.of(session);
        c.testUnitReadyClearingUnitAttention(LUN);
        return c;
    }

    private static Pattern inSync(Node primary) {
        return Pattern.compile("HA node " + primary.name + ": " + primary.peer + " in sync");
    }

    private static void assertGood(ScsiResult r, String what) {
        assertThat(r.good()).as(what + ": " + r).isTrue();
    }

    /** The data of a PERSISTENT RESERVE IN that must succeed (past unit attentions). */
    private static byte[] data(ScsiResult r, String what) {
        assertGood(r, what);
        return r.data();
    }

    /**
     * PERSISTENT RESERVE OUT (SPC-4 6.16) with the basic 24-byte parameter list (6.16.3): 0..7
     * RESERVATION KEY, 8..15 SERVICE ACTION RESERVATION KEY, 20 SPEC_I_PT ALL_TG_PT APTPL; sent
     * again past unit attentions (the nodes' roles change the port groups' states).
     */
    private static ScsiResult prOut(ScsiClient c, int serviceAction, int type, long key, long saKey, int flags)
            throws IOException {
        ByteBuffer list = ByteBuffer.allocate(24);
        list.putLong(0, key).putLong(8, saKey).put(20, (byte) flags);
        byte[] cdb = new byte[10];
        cdb[0] = 0x5F;
        cdb[1] = (byte) serviceAction;
        cdb[2] = (byte) type; // SCOPE 0 (LU_SCOPE) | TYPE
        cdb[8] = 24; // PARAMETER LIST LENGTH (bytes 5..8)
        return pastUnitAttention(() -> c.execute(LUN, cdb, list.array()));
    }

    /** PERSISTENT RESERVE IN (SPC-4 6.15) with a 1 KiB ALLOCATION LENGTH (bytes 7..8), past unit attentions. */
    private static ScsiResult prIn(ScsiClient c, int serviceAction) throws IOException {
        byte[] cdb = {0x5E, (byte) serviceAction, 0, 0, 0, 0, 0, 0x04, 0x00, 0};
        return pastUnitAttention(() -> c.execute(LUN, cdb, 1024));
    }
}
