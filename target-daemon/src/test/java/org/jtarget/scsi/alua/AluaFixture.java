package org.jtarget.scsi.alua;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;

import java.util.List;

import static org.jtarget.scsi.lun.Cdbs.of;

/**
 * A core with two target port groups: group 1 (active/optimized, preferred) reached by
 * {@link #A1} and {@link #B1}, group 2 (standby) reached by {@link #C2}; two LUs; every nexus
 * logged in.
 */
final class AluaFixture {

    static final ITNexus A1 = new ITNexus(ProtocolId.ISCSI, "iqn.a", "iqn.a,i,0x1", "iqn.t,t,0x0001", 1, 1);
    static final ITNexus B1 = new ITNexus(ProtocolId.ISCSI, "iqn.b", "iqn.b,i,0x2", "iqn.t,t,0x0001", 1, 1);
    static final ITNexus C2 = new ITNexus(ProtocolId.ISCSI, "iqn.c", "iqn.c,i,0x3", "iqn.t,t,0x0002", 2, 2);

    final CoreHarness h;

    AluaFixture(AluaState group2) {
        this(group2, true);
    }

    /** With {@code explicitChanges} false the target alone decides the states (implicit ALUA, as an HA node). */
    AluaFixture(AluaState group2, boolean explicitChanges) {
        TargetPortGroups groups = new TargetPortGroups(List.of(
                TargetPortGroup.of(2, group2, false), TargetPortGroup.of(1, AluaState.ACTIVE_OPTIMIZED, true)),
                explicitChanges);
        h = new CoreHarness(List.of(new LogicalUnitDefinition(0, new TestStore(512, 64, true, false), false, false),
                new LogicalUnitDefinition(1, new TestStore(512, 64, true, false), false, false)), null, groups);
        for (ITNexus n : List.of(A1, B1, C2)) {
            h.core.nexusLoggedIn(n);
        }
    }

    static byte[] rtpg(int format, int alloc) {
        return of(0xA3, format << 5 | 0x0A, 0, 0, 0, 0, alloc >>> 24, alloc >>> 16, alloc >>> 8, alloc, 0, 0);
    }

    static byte[] stpgCdb(int length) {
        return of(0xA4, 0x0A, 0, 0, 0, 0, length >>> 24, length >>> 16, length >>> 8, length, 0, 0);
    }

    /** A SET TARGET PORT GROUPS parameter list: pairs of (state, group). */
    static byte[] stpgList(int... stateGroupPairs) {
        byte[] l = new byte[4 + stateGroupPairs.length * 2];
        for (int i = 0; i < stateGroupPairs.length; i += 2) {
            int at = 4 + i * 2;
            l[at] = (byte) stateGroupPairs[i];
            l[at + 2] = (byte) (stateGroupPairs[i + 1] >>> 8);
            l[at + 3] = (byte) stateGroupPairs[i + 1];
        }
        return l;
    }

    Result stpg(ITNexus from, byte[] list) {
        return h.run(from, stpgCdb(list.length), list.length, list);
    }

    Result rtpg(ITNexus from, int format) {
        return h.run(from, rtpg(format, 4096), 4096, null);
    }

    Result read10(ITNexus from) {
        return h.run(from, of(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, null);
    }

    Result tur(ITNexus from) {
        return h.run(from, new byte[6], 0, null);
    }

    Result inquiry(ITNexus from) {
        return h.run(from, of(0x12, 0, 0, 0, 96, 0), 96, null);
    }
}
