package org.jtarget.rdma.cm;

import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairAttributes;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;

import java.util.EnumSet;

/**
 * The transitions a connection manager makes for its consumer (rdma_cm does the same on
 * rdma_connect/rdma_accept): RESET → INIT with remote read and write allowed on the queue pair
 * (regions still decide), INIT → RTR with the peer, RTR → RTS.
 */
public final class QueuePairBringUp {

    private QueuePairBringUp() {
    }

    /**
     * Moves a RESET queue pair to INIT, where receives may be posted before the connection is up
     * (rdma_create_qp(3) leaves rdma_cm queue pairs in INIT for that reason).
     */
    public static void toInit(QueuePair qp) throws RdmaException {
        qp.modify(QueuePairAttributes.to(QueuePairState.INIT)
                .access(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE)));
    }

    /** Moves a RESET or INIT queue pair to RTS, bound to {@code destQpNum}. */
    public static void toReadyToSend(QueuePair qp, int destQpNum) throws RdmaException {
        if (qp.state() == QueuePairState.RESET) {
            toInit(qp);
        }
        qp.modify(QueuePairAttributes.to(QueuePairState.RTR).destQpNum(destQpNum));
        qp.modify(QueuePairAttributes.to(QueuePairState.RTS));
    }
}
