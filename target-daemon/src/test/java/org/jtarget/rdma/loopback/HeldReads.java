package org.jtarget.rdma.loopback;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Where the loopback provider places RDMA READ responses (its placement executor): at once, or,
 * while holding, only when released, as a READ whose response is still on the wire. Tests use it
 * to keep commands waiting for their data-out.
 */
public final class HeldReads implements Executor {

    private final ArrayDeque<Runnable> held = new ArrayDeque<>();
    private boolean holding;

    @Override
    public synchronized void execute(Runnable placement) {
        if (holding) {
            held.add(placement);
        } else {
            placement.run();
        }
    }

    public synchronized void hold() {
        holding = true;
    }

    public synchronized int held() {
        return held.size();
    }

    public synchronized void release() {
        holding = false;
        for (Runnable r; (r = held.poll()) != null; ) {
            r.run();
        }
    }
}
