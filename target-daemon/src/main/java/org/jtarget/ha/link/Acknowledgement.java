package org.jtarget.ha.link;

/** How the receiving side answers one request of the peer, from any thread, exactly once. */
public interface Acknowledgement {

    /**
     * @param applied true when the request is done (a write is in the store, durable when it
     *                asked for FUA; a flush has made the blocks durable)
     * @param reason  why not, for the peer's log; null when applied
     */
    void done(boolean applied, String reason);
}
