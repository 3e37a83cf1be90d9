package org.jtarget.rdma;

import java.util.EnumSet;
import java.util.Set;

/**
 * Arguments of {@link QueuePair#modify}, after libibverbs {@code struct ibv_qp_attr}: the target
 * state and the attributes that state needs (access flags at INIT, the peer at RTR, retry counts
 * at RTS). Control path: plain mutable fields with chaining setters.
 */
public final class QueuePairAttributes {
    public QueuePairState state;
    /** INIT: what the peer may do through this queue pair (qp_access_flags). */
    public Set<AccessFlag> accessFlags = EnumSet.noneOf(AccessFlag.class);
    /** RTR: the peer's queue pair number (dest_qp_num); providers that bind by connection ignore it. */
    public int destQpNum;
    /** RTS: RNR retries, 7 meaning forever (rnr_retry, IBA 9.7.5.2.8). */
    public int rnrRetry = 7;
    /** RTR: the RNR back-off in microseconds (min_rnr_timer, decoded). */
    public int minRnrTimerMicros = 10;

    public static QueuePairAttributes to(QueuePairState state) {
        QueuePairAttributes a = new QueuePairAttributes();
        a.state = state;
        return a;
    }

    public QueuePairAttributes access(Set<AccessFlag> flags) {
        this.accessFlags = flags;
        return this;
    }

    public QueuePairAttributes destQpNum(int qpNum) {
        this.destQpNum = qpNum;
        return this;
    }

    public QueuePairAttributes rnrRetry(int retries) {
        this.rnrRetry = retries;
        return this;
    }
}
