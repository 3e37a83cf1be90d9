package org.jtarget.scsi.lun;

import org.jtarget.scsi.lun.LuStatistics.Op;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a fabric carried for one session or one portal: commands by kind (as {@link LuStatistics}
 * counts them: READ, WRITE, other), the data bytes of those READs and WRITEs that ended GOOD, and
 * the commands that ended with another status. A fabric counts each command as it hands its
 * status to the initiator, on that session's event loop; the metrics endpoint and the management
 * API read them at any time. Striped adders: no lock and no allocation per command.
 */
public final class TransferCounters {

    private final LongAdder[] commands = {new LongAdder(), new LongAdder(), new LongAdder()};
    private final LongAdder[] bytes = {new LongAdder(), new LongAdder()};
    private final LongAdder failed = new LongAdder();

    /**
     * Counts a command ending with its status.
     *
     * @param transferred the data bytes it moved to or from the initiator
     */
    public void record(ScsiCommand cmd, long transferred) {
        Op op = LuStatistics.op(cmd.opcode());
        commands[op.ordinal()].increment();
        int status = cmd.status();
        if (status == ScsiStatus.GOOD) {
            if (op != Op.OTHER) {
                bytes[op.ordinal()].add(transferred);
            }
        } else if (status != ScsiStatus.CONDITION_MET) {
            failed.increment();
        }
    }

    /**
     * The data bytes a command ending with status only moved from the initiator: its data-out, at
     * most the expected data transfer length (the fabric moved no more), none for other directions.
     */
    public static long dataOutBytes(ScsiCommand cmd) {
        boolean dataOut = cmd.direction() == DataDirection.WRITE || cmd.direction() == DataDirection.BIDIRECTIONAL;
        return dataOut ? Math.min(cmd.expectedDataTransferLength(), cmd.dataOutLength()) : 0;
    }

    public long commands(Op op) {
        return commands[op.ordinal()].sum();
    }

    /** Bytes moved by GOOD READs or WRITEs (0 for other commands). */
    public long bytes(Op op) {
        return op == Op.OTHER ? 0 : bytes[op.ordinal()].sum();
    }

    /** Commands that ended with a status other than GOOD or CONDITION MET. */
    public long failed() {
        return failed.sum();
    }
}
