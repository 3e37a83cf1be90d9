package org.jtarget.scsi.lun;

import org.jtarget.backstore.spi.ReplicatedState;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.alua.AluaState;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.sense.SenseReason;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One kind of a logical unit's state (its persistent reservations, its mode parameters) kept on
 * both nodes of an HA pair through the store's {@link ReplicatedState}: a change made here is
 * published as the whole new state before the command that made it completes, and the peer's
 * records replace the state here. Changes of one kind are made and published one at a time (a
 * lock of their own, not the state's monitor, which event loops take: publishing waits for the
 * peer), so the peer installs them in the order they were made, and a snapshot for a resync is
 * never overtaken by a change it does not contain.
 */
public final class UnitStateReplica implements ReplicatedState.Holder {

    /** Replaces the state with a record's (taking the state's own lock). */
    public interface Installer {
        /** @throws IOException when the record is not one this node reads, or cannot be kept */
        void install(byte[] record) throws IOException;
    }

    /** A change to the state, made under the state's own lock by the caller. */
    public interface Change {
        void apply() throws IOException;
    }

    /** The record of a change would not fit in one message of the link: the change was undone. */
    public static final class TooLarge extends IOException {
        TooLarge(String message) {
            super(message);
        }
    }

    private final ReplicatedState store;
    private final String key;
    /** The whole current state as a record (taking the state's own lock). */
    private final java.util.function.Supplier<byte[]> encoder;
    private final Installer installer;
    private final ReentrantLock order = new ReentrantLock();

    UnitStateReplica(ReplicatedState store, String key, java.util.function.Supplier<byte[]> encoder,
                     Installer installer) {
        this.store = store;
        this.key = key;
        this.encoder = encoder;
        this.installer = installer;
        store.attach(key, this);
    }

    /** True while changes may be made here (this node is the pair's primary). */
    public boolean acceptsChanges() {
        return store.acceptsChanges();
    }

    /**
     * The answer to a state change on a node that does not take changes: through a standby port
     * (the secondary's) LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE, else (a primary
     * whose lease lapsed, a pair deciding) ASYMMETRIC ACCESS STATE TRANSITION: multipath sends the
     * command again through the primary's port either way (SPC-4 5.15.2.4.4, 5.15.2.4.6).
     */
    public static SenseReason refusal(CommandContext ctx) {
        AluaState port = ctx.target().portGroups().stateOf(ctx.cmd().nexus().targetPortGroup());
        return port == AluaState.STANDBY ? SenseReason.LU_NOT_ACCESSIBLE_TARGET_PORT_IN_STANDBY_STATE
                : SenseReason.LU_NOT_ACCESSIBLE_ASYMMETRIC_ACCESS_STATE_TRANSITION;
    }

    /**
     * Makes {@code change} and, if the state differs afterwards, publishes it; blocks until the
     * peer has it (or this node goes on alone). When it cannot be published the change is undone
     * here too (the record installed again; unit attentions it raised stay raised), so that a
     * command that fails never leaves a state only this node knows, and the exception says why.
     *
     * @throws StoreException NOT_SERVED_HERE when this node may no longer serve
     * @throws TooLarge       when the new state is larger than the link carries
     */
    public void change(Change change) throws IOException {
        order.lock();
        try {
            byte[] before = encoder.get();
            change.apply();
            byte[] after = encoder.get();
            if (Arrays.equals(before, after)) {
                return;
            }
            try {
                if (after.length > store.maxRecordBytes()) {
                    throw new TooLarge(key + ": " + after.length + " bytes of state, more than the "
                            + store.maxRecordBytes() + " the HA link carries");
                }
                store.publish(key, after);
            } catch (IOException | RuntimeException e) {
                installer.install(before);
                throw e;
            }
        } finally {
            order.unlock();
        }
    }

    @Override
    public void install(byte[] record) throws IOException {
        order.lock();
        try {
            installer.install(record);
        } finally {
            order.unlock();
        }
    }

    @Override
    public void snapshot(ReplicatedState.Sink sink) throws IOException {
        order.lock();
        try {
            sink.accept(encoder.get());
        } finally {
            order.unlock();
        }
    }

    /** The unit is gone: the peer's records for it are no longer installed here. */
    void close() {
        store.detach(key, this);
    }
}
