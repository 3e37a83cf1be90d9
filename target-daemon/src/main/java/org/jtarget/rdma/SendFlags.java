package org.jtarget.rdma;

/** Bits of {@link WorkRequest#sendFlags}, after libibverbs {@code enum ibv_send_flags}. */
public final class SendFlags {
    /** Do not start this request before every prior RDMA READ on the queue pair has completed. */
    public static final int FENCE = 1;
    /** Produce a completion on success (unsignaled requests complete silently unless they fail). */
    public static final int SIGNALED = 2;
    /** Ask the peer for a solicited event (ibv_req_notify_cq(3) solicited_only). */
    public static final int SOLICITED = 4;

    private SendFlags() {
    }
}
