package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Persist Through Power Loss (SPC-4 5.13.5): a registration made with APTPL=1 and the WRITE
 * EXCLUSIVE reservation taken under it survive a clean daemon restart on the same
 * {@code daemon.state-dir}; afterwards another initiator's WRITE(10) gets RESERVATION CONFLICT
 * while its READ(10) still succeeds (SPC-4 table 60, Write Exclusive). Over TCP, over iSER and over
 * SRP ({@link ScsiTransport}; the daemon serves the three portals, each run on its own daemon and
 * state). Over SRP the two initiators are two SRP initiator ports ({@link ScsiTransport#srpPort}),
 * so what persists is a registration under an SRP TransportID, and the other port is refused.
 */
class AptplReservationIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String INITIATOR_A = "iqn.2026-11.org.jtarget:aptpl-a";
    private static final String INITIATOR_B = "iqn.2026-11.org.jtarget:aptpl-b";
    private static final long KEY = 0x1122334455667788L;
    private static final int SA_REGISTER = 0x00;
    private static final int SA_RESERVE = 0x01;
    private static final int SA_READ_KEYS = 0x00;
    private static final int SA_READ_RESERVATION = 0x01;
    private static final int TYPE_WRITE_EXCLUSIVE = 0x01;
    private static final int RESERVATION_CONFLICT = 0x18;
    private static final int BLOCK = 512;

    @TempDir
    Path dir;

    private DaemonProcess daemon;
    private Portals portals;

    @AfterEach
    void stop() {
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    private Path writeConfig() throws IOException {
        String yaml = portals.yaml("state-dir: " + dir.resolve("state")) + """
                backstores:
                  - { name: ram0, type: memory, size: 16MiB }
                targets:
                  - iqn: %s
                    portals: [%s]
                    luns:
                      - { lun: 0, backstore: ram0 }
                    acl: ["*"]
                %s""".formatted(DaemonConfig.IQN, Portals.TARGET_PORTALS, Portals.TARGET_SRP);
        return DaemonConfig.write(dir, yaml);
    }

    @ParameterizedTest(name = "[{0}] an APTPL registration and reservation survive a restart")
    @EnumSource(ScsiTransport.class)
    void aptplRegistrationAndReservationSurviveARestart(ScsiTransport transport) throws Exception {
        portals = Portals.free();
        Path config = writeConfig();
        daemon = DaemonProcess.start(config, portals.tcp());
        try (ScsiClient a = session(transport, INITIATOR_A)) {
            ScsiResult reg = prOut(a, SA_REGISTER, 0, 0L, KEY, true);
            assertThat(reg.good()).as("REGISTER APTPL=1: " + reg + "\n" + daemon.describe()).isTrue();
            ScsiResult res = prOut(a, SA_RESERVE, TYPE_WRITE_EXCLUSIVE, KEY, 0L, false);
            assertThat(res.good()).as("RESERVE Write Exclusive: " + res).isTrue();
            a.logout();
        }
        daemon.stopCleanly();
        assertThat(Files.isDirectory(dir.resolve("state"))).as("state-dir written").isTrue();

        daemon = DaemonProcess.start(config, portals.tcp());
        try (ScsiClient b = session(transport, INITIATOR_B)) {
            ScsiResult keys = prIn(b, SA_READ_KEYS);
            assertThat(keys.good()).as("READ KEYS: " + keys + "\n" + daemon.describe()).isTrue();
            ByteBuffer k = ByteBuffer.wrap(keys.data());
            assertThat(k.getInt(4)).as("ADDITIONAL LENGTH of READ KEYS (one key)").isEqualTo(8);
            assertThat(k.getLong(8)).as("the registered key after the restart").isEqualTo(KEY);

            ScsiResult rsv = prIn(b, SA_READ_RESERVATION);
            assertThat(rsv.good()).as("READ RESERVATION: " + rsv).isTrue();
            ByteBuffer r = ByteBuffer.wrap(rsv.data());
            assertThat(r.getInt(4)).as("ADDITIONAL LENGTH of READ RESERVATION (a reservation)").isEqualTo(16);
            assertThat(r.getLong(8)).as("reservation holder's key").isEqualTo(KEY);
            assertThat(r.get(21) & 0xFF).as("SCOPE/TYPE: LU_SCOPE, Write Exclusive").isEqualTo(TYPE_WRITE_EXCLUSIVE);

            ScsiResult w = b.write10(0, 0, new byte[BLOCK], BLOCK);
            assertThat(w.status()).as("WRITE(10) from another initiator: " + w).isEqualTo(RESERVATION_CONFLICT);
            ScsiResult rd = b.read10(0, 0, 1, BLOCK);
            assertThat(rd.good()).as("READ(10) from another initiator: " + rd).isTrue();
            assertThat(rd.data()).hasSize(BLOCK);
            b.logout();
        }
    }

    private ScsiClient session(ScsiTransport transport, String initiator) throws IOException {
        ScsiClient c = transport.login(portals.port(transport), initiator, TIMEOUT);
        assertThat(c.testUnitReadyClearingUnitAttention(0).good()).as("TEST UNIT READY").isTrue();
        return c;
    }

    /**
     * PERSISTENT RESERVE OUT (SPC-4 6.16) with the basic 24-byte parameter list (6.16.3):
     * 0..7 RESERVATION KEY, 8..15 SERVICE ACTION RESERVATION KEY, 20 SPEC_I_PT ALL_TG_PT APTPL(0).
     */
    private static ScsiResult prOut(ScsiClient c, int serviceAction, int type, long key, long saKey,
                                    boolean aptpl) throws IOException {
        ByteBuffer list = ByteBuffer.allocate(24);
        list.putLong(0, key).putLong(8, saKey).put(20, (byte) (aptpl ? 1 : 0));
        byte[] cdb = new byte[10];
        cdb[0] = 0x5F;
        cdb[1] = (byte) serviceAction;
        cdb[2] = (byte) type; // SCOPE 0 (LU_SCOPE) | TYPE
        cdb[8] = 24; // PARAMETER LIST LENGTH (bytes 5..8)
        return c.execute(0, cdb, list.array());
    }

    /** PERSISTENT RESERVE IN (SPC-4 6.15) with a 256-byte ALLOCATION LENGTH (bytes 7..8). */
    private static ScsiResult prIn(ScsiClient c, int serviceAction) throws IOException {
        byte[] cdb = new byte[10];
        cdb[0] = 0x5E;
        cdb[1] = (byte) serviceAction;
        cdb[8] = (byte) 0xFF;
        return c.execute(0, cdb, 255);
    }
}
