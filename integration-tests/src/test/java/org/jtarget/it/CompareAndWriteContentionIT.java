package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * COMPARE AND WRITE (SBC-4 5.3) as an atomic test-and-set between two initiators: each
 * increments a counter held in block 0 by reading the block and sending CAW(expected = what it
 * read, new = counter + 1), many times, concurrently. The compare and the write must be one
 * atomic step (SBC-4 5.3: "the device server shall ... as an uninterrupted series of actions"),
 * so every successful CAW writes a distinct counter value and the final counter equals the
 * number of successes; a lost update would leave it smaller.
 */
class CompareAndWriteContentionIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final long RUN_SECONDS = 60;
    private static final int BLOCK = 512;
    private static final int ROUNDS = 200;
    private static final int SENSE_MISCOMPARE = 0x0E;

    @RegisterExtension
    static final DaemonExtension DAEMON = DaemonExtension.withRdmaPortals(portals -> portals.yaml() + """
                backstores:
                  - { name: ram0, type: memory, size: 16MiB }
                targets:
                  - iqn: %s
                    portals: [%s]
                    luns:
                      - { lun: 0, backstore: ram0 }
                    acl: ["*"]
                %s""".formatted(DaemonConfig.IQN, Portals.TARGET_PORTALS, Portals.TARGET_SRP));

    /** What one initiator saw: the counter values its successful CAWs wrote, and its miscompares. */
    record Outcome(List<Long> written, int miscompares) {
    }

    /**
     * Over {@code transport}: the setup, initiator A and the final check. Initiator B is on the same
     * fabric except over iSER, where it is on TCP: the test daemon's pinned arena (6 MiB under the
     * usual 8 MiB memlock limit) holds one iSER connection, so {@code [iser]} races an iSER session
     * against a TCP one on the same LU. Two SRP channels fit (about 1.3 MiB each), so {@code [srp]}
     * races two SRP initiator ports.
     */
    @ParameterizedTest(name = "[{0}] concurrent COMPARE AND WRITE never loses an update")
    @EnumSource(ScsiTransport.class)
    void concurrentCompareAndWriteNeverLosesAnUpdate(ScsiTransport transport) throws Exception {
        try (ScsiClient setup = session(transport, "iqn.2026-11.org.jtarget:caw-setup")) {
            assertThat(setup.write10(0, 0, block(0), BLOCK).good()).as("initial WRITE(10) of counter 0").isTrue();
            setup.logout();
        }
        ScsiTransport second = transport == ScsiTransport.ISER ? ScsiTransport.TCP : transport;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Outcome> a = pool.submit(() -> increment(transport, "iqn.2026-11.org.jtarget:caw-a"));
            Future<Outcome> b = pool.submit(() -> increment(second, "iqn.2026-11.org.jtarget:caw-b"));
            Outcome oa = a.get(RUN_SECONDS, TimeUnit.SECONDS);
            Outcome ob = b.get(RUN_SECONDS, TimeUnit.SECONDS);

            TreeSet<Long> values = new TreeSet<>(oa.written());
            values.addAll(ob.written());
            int successes = oa.written().size() + ob.written().size();
            assertThat(values).as("counter values written by successful CAWs are distinct (A %s, B %s)",
                    oa, ob).hasSize(successes);
            assertThat(oa.written().size() + oa.miscompares()).isEqualTo(ROUNDS);
            assertThat(ob.written().size() + ob.miscompares()).isEqualTo(ROUNDS);

            try (ScsiClient check = session(transport, "iqn.2026-11.org.jtarget:caw-check")) {
                ScsiResult r = check.read10(0, 0, 1, BLOCK);
                assertThat(r.good()).as("final READ(10): " + r).isTrue();
                long counter = ByteBuffer.wrap(r.data()).getLong(0);
                assertThat(counter).as("final counter vs %d successful CAWs (A %d ok / %d miscompare, B %d / %d)",
                        successes, oa.written().size(), oa.miscompares(), ob.written().size(), ob.miscompares())
                        .isEqualTo(successes);
                assertThat(r.data()).as("the whole block is one CAW's data").isEqualTo(block(counter));
                assertThat(values.isEmpty() || values.last() == counter).as("highest value written").isTrue();
                check.logout();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@link #ROUNDS} read-then-CAW increments from one initiator's session. */
    private static Outcome increment(ScsiTransport transport, String initiator) throws IOException {
        List<Long> written = new ArrayList<>();
        int miscompares = 0;
        try (ScsiClient c = session(transport, initiator)) {
            for (int i = 0; i < ROUNDS; i++) {
                ScsiResult r = c.read10(0, 0, 1, BLOCK);
                assertThat(r.good()).as(initiator + " READ(10): " + r).isTrue();
                long next = ByteBuffer.wrap(r.data()).getLong(0) + 1;
                ScsiResult caw = compareAndWrite(c, r.data(), block(next));
                if (caw.good()) {
                    written.add(next);
                } else {
                    assertThat(caw.status()).as(initiator + " CAW: " + caw).isEqualTo(ScsiResult.CHECK_CONDITION);
                    assertThat(caw.senseKey()).as(initiator + " CAW sense: " + caw).isEqualTo(SENSE_MISCOMPARE);
                    miscompares++;
                }
            }
            c.logout();
        }
        return new Outcome(written, miscompares);
    }

    /** COMPARE AND WRITE (SBC-4 5.3) of LBA 0, one block: data-out = verify block then write block. */
    private static ScsiResult compareAndWrite(ScsiClient c, byte[] expected, byte[] replacement)
            throws IOException {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) 0x89;
        cdb[13] = 1; // NUMBER OF LOGICAL BLOCKS
        byte[] data = new byte[2 * BLOCK];
        System.arraycopy(expected, 0, data, 0, BLOCK);
        System.arraycopy(replacement, 0, data, BLOCK, BLOCK);
        return c.execute(0, cdb, data);
    }

    /** A block holding {@code counter} as a big-endian long repeated over all 512 bytes. */
    private static byte[] block(long counter) {
        ByteBuffer b = ByteBuffer.allocate(BLOCK);
        while (b.hasRemaining()) {
            b.putLong(counter);
        }
        return b.array();
    }

    private static ScsiClient session(ScsiTransport transport, String initiator) throws IOException {
        ScsiClient c = transport.login(DAEMON, initiator, TIMEOUT);
        assertThat(c.testUnitReadyClearingUnitAttention(0).good()).as("TEST UNIT READY").isTrue();
        return c;
    }
}
