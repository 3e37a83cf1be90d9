package org.jtarget.ha;

import org.jtarget.ha.witness.WitnessAnswer;
import org.jtarget.ha.witness.WitnessClient;
import org.jtarget.ha.witness.WitnessRequest;

import java.time.Duration;

/**
 * A node's questions to the witness of its pair, with the pair's and node's names and the lease
 * length filled in: may I keep serving this generation (a lease), may I serve without my peer
 * (a promotion), I stop (a release).
 */
public final class Witness implements AutoCloseable {

    private final WitnessClient client;
    private final String pair;
    private final String node;
    private final long leaseMillis;

    /**
     * @param lease how long a grant holds: the heartbeat timeout, so that a peer that stops
     *              hearing this node may be promoted once the lease it could not renew has ended
     */
    public Witness(WitnessClient client, String pair, String node, Duration lease) {
        this.client = client;
        this.pair = pair;
        this.node = node;
        this.leaseMillis = lease.toMillis();
    }

    public long leaseMillis() {
        return leaseMillis;
    }

    /** May this node keep serving {@code g} for one more lease? */
    public WitnessAnswer lease(Generation g) {
        return client.ask(new WitnessRequest(WitnessRequest.Kind.LEASE, pair, node, g, leaseMillis));
    }

    /** May this node, whose data is {@code g}, serve without its peer as {@code g.next(node)}? */
    public WitnessAnswer promote(Generation g) {
        return client.ask(new WitnessRequest(WitnessRequest.Kind.PROMOTE, pair, node, g, leaseMillis));
    }

    /** This node stops serving: its lease ends now. */
    public void release() {
        client.ask(new WitnessRequest(WitnessRequest.Kind.RELEASE, pair, node, null, 0));
    }

    @Override
    public void close() {
        client.close();
    }
}
