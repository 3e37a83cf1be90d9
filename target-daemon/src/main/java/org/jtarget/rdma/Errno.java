package org.jtarget.rdma;

/**
 * The error numbers the verbs return (libibverbs returns an errno from ibv_post_send(3),
 * ibv_post_recv(3), ibv_modify_qp(3), ibv_dereg_mr(3)). Posting returns them as an int so the data
 * path never allocates an exception.
 */
public final class Errno {
    /** Success. */
    public static final int OK = 0;
    /** A queue is full (ibv_post_send(3): "ENOMEM Send Queue is full or not enough resources"). */
    public static final int ENOMEM = 12;
    /** The resource is in use (ibv_dereg_mr(3) on a region still referenced). */
    public static final int EBUSY = 16;
    /** Invalid value: bad state for the verb, too many SGEs, bad transition. */
    public static final int EINVAL = 22;

    private Errno() {
    }
}
