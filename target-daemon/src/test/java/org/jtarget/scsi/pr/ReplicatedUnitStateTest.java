package org.jtarget.scsi.pr;

import org.jtarget.backstore.spi.ForwardingBackstore;
import org.jtarget.backstore.spi.ReplicatedState;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.alua.AluaState;
import org.jtarget.scsi.alua.TargetPortGroups;
import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jtarget.scsi.pr.PrTestSupport.CHECK_CONDITION;
import static org.jtarget.scsi.pr.PrTestSupport.GOOD;
import static org.jtarget.scsi.pr.PrTestSupport.RESERVATION_CONFLICT;
import static org.jtarget.scsi.pr.PrTestSupport.u32;
import static org.jtarget.scsi.pr.PrTestSupport.u64;

/**
 * The core's side of an HA pair's SCSI state (docs/ha.md, "SCSI state"): two cores, one per node,
 * whose LU 0 sits on a store that carries the state through a {@link ReplicatedState}; here the
 * "link" is a direct call into the other core's holder. Each node's portal is its own target port:
 * relative target port 1 and group 1 on node 1, 2 and 2 on node 2.
 */
class ReplicatedUnitStateTest {

    /** The initiator's port through node 1's portal, and through node 2's. */
    private static final ITNexus A_VIA_1 = new ITNexus(ProtocolId.ISCSI, "iqn.a", "iqn.a,i,0x1", "iqn.t,t,0x1", 1, 1);
    private static final ITNexus A_VIA_2 = new ITNexus(ProtocolId.ISCSI, "iqn.a", "iqn.a,i,0x1", "iqn.t,t,0x2", 2, 2);
    private static final ITNexus B_VIA_1 = new ITNexus(ProtocolId.ISCSI, "iqn.b", "iqn.b,i,0x2", "iqn.t,t,0x1", 1, 1);
    private static final ITNexus B_VIA_2 = new ITNexus(ProtocolId.ISCSI, "iqn.b", "iqn.b,i,0x2", "iqn.t,t,0x2", 2, 2);
    private static final ITNexus C_VIA_2 = new ITNexus(ProtocolId.ISCSI, "iqn.c", "iqn.c,i,0x3", "iqn.t,t,0x2", 2, 2);
    private static final int WE = 1;
    private static final int EA = 3;
    private static final int ALL_TG_PT = 0x04;
    private static final int APTPL = 0x01;

    /** One node's end of the state: a direct line to the peer's holders. */
    static final class FakeNode implements ReplicatedState {
        final Map<String, Holder> holders = new HashMap<>();
        final List<String> published = new ArrayList<>();
        FakeNode peer;
        boolean primary;
        boolean peerDown;
        IOException failNext;
        int maxRecord = 64 << 10;

        @Override
        public boolean acceptsChanges() {
            return primary;
        }

        @Override
        public void publish(String key, byte[] record) throws IOException {
            if (failNext != null) {
                IOException e = failNext;
                failNext = null;
                throw e;
            }
            published.add(key);
            if (!peerDown) {
                peer.holders.get(key).install(record);
            }
        }

        @Override
        public int maxRecordBytes() {
            return maxRecord;
        }

        @Override
        public void attach(String key, Holder holder) {
            holders.put(key, holder);
        }

        @Override
        public void detach(String key, Holder holder) {
            holders.remove(key, holder);
        }

        /** What a resync does: every key's whole state to the peer. */
        void sendAll() throws IOException {
            for (Map.Entry<String, Holder> e : holders.entrySet()) {
                e.getValue().snapshot(r -> peer.holders.get(e.getKey()).install(r));
            }
        }
    }

    @TempDir
    Path dir;

    private final FakeNode one = new FakeNode();
    private final FakeNode two = new FakeNode();
    private CoreHarness h1;
    private CoreHarness h2;
    private PrTestSupport pr1;
    private PrTestSupport pr2;
    private TargetPortGroups groups2;

    @BeforeEach
    void pair() {
        one.peer = two;
        two.peer = one;
        one.primary = true;
        h1 = node(one, dir.resolve("one"), new TargetPortGroups());
        groups2 = new TargetPortGroups();
        groups2.ensureGroup(2);
        groups2.changeState(2, AluaState.STANDBY, false); // the secondary's port group
        h2 = node(two, dir.resolve("two"), groups2);
        pr1 = new PrTestSupport(h1);
        pr2 = new PrTestSupport(h2);
        for (ITNexus n : new ITNexus[] {A_VIA_1, B_VIA_1}) {
            h1.core.nexusLoggedIn(n);
        }
        for (ITNexus n : new ITNexus[] {A_VIA_2, B_VIA_2, C_VIA_2}) {
            h2.core.nexusLoggedIn(n);
        }
    }

    private static CoreHarness node(FakeNode state, Path stateDir, TargetPortGroups groups) {
        TestStore local = new TestStore(512, 64, false, false);
        ForwardingBackstore replicated = new ForwardingBackstore(local) {
            @Override
            public ReplicatedState replicatedState() {
                return state;
            }
        };
        return new CoreHarness(List.of(new LogicalUnitDefinition(0, replicated, false, false)), stateDir, groups);
    }

    /** The secondary fails, the node is promoted: its port group turns active/optimized. */
    private void promoteTwo() {
        one.primary = false;
        two.primary = true;
        groups2.changeState(2, AluaState.ACTIVE_OPTIMIZED, false);
    }

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).as("status").isEqualTo(CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    private static long[] keys(PrTestSupport pr, ITNexus n) {
        byte[] d = pr.in(n, 0).dataIn();
        long[] k = new long[u32(d, 4) / 8];
        for (int i = 0; i < k.length; i++) {
            k[i] = u64(d, 8 + 8 * i);
        }
        return k;
    }

    @Test
    void everyPrOutChangeOnThePrimaryIsOnTheSecondaryBeforeItCompletesAndShowsTheSameThere() {
        assertThat(pr1.out(A_VIA_1, 0, 0, 0, 0xA1, ALL_TG_PT).status()).isEqualTo(GOOD); // REGISTER, all ports
        assertThat(pr1.register(B_VIA_1, 0xB1).status()).isEqualTo(GOOD);
        assertThat(pr1.reserve(A_VIA_1, 0xA1, WE).status()).isEqualTo(GOOD);
        assertThat(one.published).containsExactly("iqn.t/lun0/pr", "iqn.t/lun0/pr", "iqn.t/lun0/pr");

        assertThat(keys(pr2, C_VIA_2)).containsExactly(0xA1, 0xB1);
        assertThat(pr2.in(C_VIA_2, 0).dataIn()).as("READ KEYS: generation and keys")
                .isEqualTo(pr1.in(B_VIA_1, 0).dataIn());
        assertThat(pr2.in(C_VIA_2, 1).dataIn()).as("READ RESERVATION: holder's key, type")
                .isEqualTo(pr1.in(B_VIA_1, 1).dataIn());
        assertThat(pr2.in(C_VIA_2, 3).dataIn()).as("READ FULL STATUS: ports, ALL_TG_PT, holder")
                .isEqualTo(pr1.in(B_VIA_1, 3).dataIn());

        // a reservation the holder already has, and a refused command, change nothing: nothing published
        assertThat(pr1.reserve(A_VIA_1, 0xA1, WE).status()).isEqualTo(GOOD);
        assertThat(pr1.reserve(B_VIA_1, 0xB1, WE).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(one.published).hasSize(3);

        // PREEMPT: B takes the reservation, A's registration is gone on both nodes
        assertThat(pr1.out(B_VIA_1, 4, EA, 0xB1, 0xA1, 0).status()).isEqualTo(GOOD);
        assertThat(keys(pr2, C_VIA_2)).containsExactly(0xB1);
        assertThat(pr2.in(C_VIA_2, 1).dataIn()).isEqualTo(pr1.in(B_VIA_1, 1).dataIn());
    }

    @Test
    void afterAFailoverTheNewPrimaryEnforcesTheReservationForTheSameNexusesAndCountsOn() {
        assertThat(pr1.out(A_VIA_1, 0, 0, 0, 0xA1, ALL_TG_PT).status()).isEqualTo(GOOD);
        assertThat(pr1.out(B_VIA_1, 0, 0, 0, 0xB1, 0).status()).isEqualTo(GOOD); // node 1's port only
        assertThat(pr1.reserve(A_VIA_1, 0xA1, EA).status()).isEqualTo(GOOD);
        int generation = u32(pr1.in(A_VIA_1, 0).dataIn(), 0);
        promoteTwo();

        assertThat(u32(pr2.in(A_VIA_2, 0).dataIn(), 0)).as("PRgeneration").isEqualTo(generation);
        assertThat(pr2.write10(A_VIA_2).status()).as("the holder, registered for all target ports, through node 2")
                .isEqualTo(GOOD);
        h2.runIo();
        assertThat(pr2.read10(C_VIA_2).status()).as("an unregistered initiator").isEqualTo(RESERVATION_CONFLICT);
        // SPC-4 5.13.7: B registered through target port 1 only: its nexus through port 2 is not registered
        assertThat(pr2.write10(B_VIA_2).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(pr2.out(B_VIA_2, 0, 0, 0xB1, 0xB2, 0).status()).as("REGISTER with B's key through port 2")
                .isEqualTo(RESERVATION_CONFLICT);

        assertThat(pr2.register(B_VIA_2, 0xB2).status()).isEqualTo(GOOD);
        assertThat(u32(pr2.in(A_VIA_2, 0).dataIn(), 0)).as("the new primary counts on").isEqualTo(generation + 1);
        assertThat(two.published).containsExactly("iqn.t/lun0/pr");
        assertThat(keys(pr1, B_VIA_1)).as("and the old primary, its secondary now, follows")
                .containsExactly(0xA1, 0xB1, 0xB2);
    }

    @Test
    void theSecondaryRefusesStateChangesThroughItsStandbyPortAndKeepsItsState() {
        assertSense(pr2.register(C_VIA_2, 0xC1), 0x2, 0x04, 0x0B); // NOT READY, TARGET PORT IN STANDBY STATE
        assertSense(selectWce(h2, C_VIA_2, false), 0x2, 0x04, 0x0B);
        assertThat(keys(pr2, C_VIA_2)).isEmpty();
        assertThat(two.published).isEmpty();
        assertThat(pr2.in(C_VIA_2, 0).status()).as("PERSISTENT RESERVE IN still answers").isEqualTo(GOOD);
    }

    @Test
    void aChangeThatCannotBeReplicatedIsUndoneAndNotAcknowledged() {
        assertThat(pr1.register(A_VIA_1, 0xA1).status()).isEqualTo(GOOD);
        one.failNext = new StoreException(StoreException.Kind.NOT_SERVED_HERE, "the witness refused", null);
        assertSense(pr1.register(B_VIA_1, 0xB1), 0x2, 0x04, 0x0A); // ASYMMETRIC ACCESS STATE TRANSITION
        assertThat(keys(pr1, A_VIA_1)).as("undone on the primary").containsExactly(0xA1);
        assertThat(keys(pr2, C_VIA_2)).containsExactly(0xA1);

        one.maxRecord = 40; // room for one registration, not two
        assertSense(pr1.register(B_VIA_1, 0xB1), 0x5, 0x55, 0x04); // INSUFFICIENT REGISTRATION RESOURCES
        assertThat(keys(pr1, A_VIA_1)).containsExactly(0xA1);
    }

    @Test
    void aSecondaryThatMissedChangesGetsTheWholeStateAtTheResyncAndKeepsAptplState() throws Exception {
        two.peerDown = true;
        one.peerDown = true;
        assertThat(pr1.out(A_VIA_1, 0, 0, 0, 0xA1, ALL_TG_PT | APTPL).status()).isEqualTo(GOOD);
        assertThat(pr1.reserve(A_VIA_1, 0xA1, WE).status()).isEqualTo(GOOD);
        assertThat(keys(pr2, C_VIA_2)).as("the secondary was down").isEmpty();

        one.peerDown = false;
        one.sendAll(); // the peer is back: the resync begins with every key's whole state
        assertThat(pr2.in(C_VIA_2, 3).dataIn()).isEqualTo(pr1.in(B_VIA_1, 3).dataIn());
        Path aptplFile = dir.resolve("two/pr/iqn.t/lun0.pr");
        assertThat(aptplFile).as("APTPL: the secondary keeps it through power loss too").exists();
        assertThat(Files.readString(aptplFile)).contains("a1 1 1 iqn.a,i,0x1");

        // the secondary's power cycle: its LU restores the state from its own file
        CoreHarness restarted = node(new FakeNode(), dir.resolve("two"), new TargetPortGroups());
        assertThat(keys(new PrTestSupport(restarted), C_VIA_2)).containsExactly(0xA1);
    }

    @Test
    void modeParametersReplicateLikeReservations() {
        assertThat(h1.core.logicalUnit(0).modes().writeCacheEnabled()).as("WCE before").isTrue();
        assertThat(selectWce(h1, A_VIA_1, false).status()).isEqualTo(GOOD);
        assertThat(one.published).containsExactly("iqn.t/lun0/mode");
        assertThat(h2.core.logicalUnit(0).modes().writeCacheEnabled()).as("WCE on the secondary").isFalse();
        assertThat(h1.core.logicalUnit(0).modes().writeCacheEnabled()).isFalse();
    }

    @Test
    void aRecordThisNodeCannotReadIsRefusedAndTheStateStays() throws Exception {
        assertThat(pr1.register(A_VIA_1, 0xA1).status()).isEqualTo(GOOD);
        ReplicatedState.Holder holder = two.holders.get("iqn.t/lun0/pr");
        assertThatThrownBy(() -> holder.install(new byte[] {2, 0, 0})).hasMessageContaining("version 2");
        assertThatThrownBy(() -> holder.install(new byte[] {1, 0, 0, 0, 1, 0, 0, 1})).hasMessageContaining("cut short");
        assertThatThrownBy(() -> two.holders.get("iqn.t/lun0/mode").install(new byte[] {1, 8}))
                .hasMessageContaining("not one this node reads");
        assertThat(keys(pr2, C_VIA_2)).containsExactly(0xA1);
    }

    @Test
    void setTargetPortGroupsIsNotOfferedOnAnHaLuAndInquirySaysImplicitAluaOnly() {
        byte[] stpg = {(byte) 0xA4, 0x0A, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0};
        Result r = h1.run(A_VIA_1, stpg, 0, new byte[] {0, 0, 0, 0, 0x02, 0, 0, 1});
        assertSense(r, 0x5, 0x24, 0x00); // ILLEGAL REQUEST, INVALID FIELD IN CDB (the service action)
        byte[] inquiry = h1.run(A_VIA_1, new byte[] {0x12, 0, 0, 0, 96, 0}, 96, null).dataIn();
        assertThat((inquiry[5] >> 4) & 0x3).as("TPGS").isEqualTo(1);
    }

    /**
     * MODE SELECT(6) of the caching page (SBC-4 6.5.5) as MODE SENSE(6) shows it now (DBD: no block
     * descriptor), with WCE as given; the header's reserved bytes zero.
     */
    private static Result selectWce(CoreHarness h, ITNexus n, boolean wce) {
        byte[] sense = h.run(n, new byte[] {0x1A, 0x08, 0x08, 0, (byte) 0xFF, 0}, 255, null).dataIn();
        byte[] list = java.util.Arrays.copyOf(sense, 4 + 2 + (sense[5] & 0xFF));
        list[0] = 0;
        list[2] = 0;
        list[4] &= 0x3F; // PS is reserved in MODE SELECT
        list[6] = (byte) (wce ? list[6] | 0x04 : list[6] & ~0x04);
        return h.run(n, new byte[] {0x15, 0x10, 0, 0, (byte) list.length, 0}, list.length, list);
    }
}
