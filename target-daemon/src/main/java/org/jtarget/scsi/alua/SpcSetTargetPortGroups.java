package org.jtarget.scsi.alua;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

/**
 * SET TARGET PORT GROUPS (SPC-4 6.31, MAINTENANCE OUT A4h / 0Ah): explicit asymmetric access
 * state changes. The whole list is checked before any group changes (all or nothing); a change
 * raises ASYMMETRIC ACCESS STATE CHANGED on every other I_T nexus (SPC-4 5.15.2.6), groups not
 * named keep their state.
 * <pre>
 * CDB:  1 SERVICE ACTION | 6..9 PARAMETER LIST LENGTH | 11 control
 * data: 0..3 reserved, then per descriptor (table 191):
 *       0 ASYMMETRIC ACCESS STATE(3..0) | 1 reserved | 2..3 TARGET PORT GROUP OR TARGET PORT
 * </pre>
 */
public final class SpcSetTargetPortGroups implements CommandHandler {

    private static final int PARAMETER_LIST_LENGTH_OFFSET = 6;
    private static final int HEADER_LENGTH = 4;
    private static final int DESCRIPTOR_LENGTH = 4;
    private static final int STATE_MASK = 0x0F;
    /** Far more than any target has groups: a longer list is refused before data moves. */
    private static final long MAX_LIST_LENGTH = HEADER_LENGTH + DESCRIPTOR_LENGTH * 1024;

    @Override
    public SenseReason parse(CommandContext ctx) {
        if (!ctx.target().portGroups().explicitChanges()) {
            // TPGS 01b (implicit only, an HA node): the command is not supported (SPC-4 6.31), which
            // for a service action is INVALID FIELD IN CDB at the SERVICE ACTION (SPC-4 4.2.5.x).
            // Linux's scsi_dh_alua sends it to activate a standby path group when INQUIRY says
            // explicit; on an HA secondary it would make the node's group active/optimized, and
            // the node would serve reads from its copy while the primary still writes.
            return ctx.invalidCdbField(1, 4);
        }
        long length = Cdb.u32(ctx.cdb(), PARAMETER_LIST_LENGTH_OFFSET);
        if (length > MAX_LIST_LENGTH) {
            return ctx.invalidCdbField(PARAMETER_LIST_LENGTH_OFFSET, SenseBuilder.NONE);
        }
        if (length != 0 && (length < HEADER_LENGTH || (length - HEADER_LENGTH) % DESCRIPTOR_LENGTH != 0)) {
            // a length that cuts a descriptor short (SPC-4 4.2.5.5)
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        ctx.cmd().dataOutLength((int) length); // 0: no data and no change (SPC-4 6.31)
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        ByteBuf data = ctx.cmd().dataOut();
        int length = data == null ? 0 : data.readableBytes();
        if (length < HEADER_LENGTH + DESCRIPTOR_LENGTH) {
            if (length != 0 && length != HEADER_LENGTH) {
                ctx.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR); // fewer bytes than the CDB said
            }
            return;
        }
        byte[] list = new byte[length - (length - HEADER_LENGTH) % DESCRIPTOR_LENGTH];
        data.getBytes(data.readerIndex(), list);
        int n = (list.length - HEADER_LENGTH) / DESCRIPTOR_LENGTH;
        int[] ids = new int[n];
        AluaState[] states = new AluaState[n];
        TargetPortGroups model = ctx.target().portGroups();
        for (int i = 0; i < n; i++) {
            int at = HEADER_LENGTH + i * DESCRIPTOR_LENGTH;
            states[i] = AluaState.settable(list[at] & STATE_MASK);
            if (states[i] == null) {
                // LBD, offline, transitioning or a reserved code: not a state one can ask for
                ctx.fail(ctx.invalidParameterField(at, 3));
                return;
            }
            ids[i] = Cdb.u16(list, at + 2);
            if (model.group(ids[i]) == null || appearsBefore(ids, i)) {
                ctx.fail(ctx.invalidParameterField(at + 2, SenseBuilder.NONE));
                return;
            }
        }
        ctx.target().setTargetPortGroupStates(ctx.cmd().nexus(), ids, states);
    }

    private static boolean appearsBefore(int[] ids, int i) {
        for (int j = 0; j < i; j++) {
            if (ids[j] == ids[i]) {
                return true;
            }
        }
        return false;
    }
}
