package org.jtarget.backstore.spi;

import java.io.IOException;

/**
 * What a store that lives on two nodes (an HA pair's) offers the SCSI core for the state of the
 * logical units on it, besides their blocks: persistent reservations, mode parameters. The core
 * hands each unit's state over as an opaque record, whole (a full state, never a change), under a
 * key of its own choosing (a unit and a kind of state); the store carries it to the peer and the
 * peer's core installs it. The store never reads a record: the core owns their format and its
 * version.
 *
 * <p>Records of one key are published in order (the core serialises them, as it serialises the
 * changes they describe), and each replaces the one before, so a record sent twice, or a full
 * snapshot sent after a change it already contains, does no harm.
 */
public interface ReplicatedState {

    /**
     * True while this node's changes count: it is the pair's primary. A node that is not must
     * refuse a state change (it would be lost, or would differ from the primary's).
     */
    boolean acceptsChanges();

    /**
     * Publishes {@code record}, the whole new state of {@code key}: returns once the peer installed
     * it, or once this node goes on without its peer (degraded, as for a write the peer missed; the
     * peer gets every key's state when it is back). Blocks: never call it on an event loop.
     *
     * @throws StoreException ({@link StoreException.Kind#NOT_SERVED_HERE}) when this node may not
     *                        go on alone, or is not the primary: the change must not be acknowledged
     * @throws IOException    when the record cannot be carried at all (larger than the link takes)
     */
    void publish(String key, byte[] record) throws IOException;

    /** The largest record {@link #publish} carries (the link's message, less the key's framing). */
    int maxRecordBytes();

    /**
     * The core's side of {@code key}: the store hands it the records the peer publishes, and asks
     * it for its whole state when the peer must get everything again (a resync). A record that
     * came for the key before it was attached is installed now.
     */
    void attach(String key, Holder holder);

    /** The unit is gone: records for {@code key} are no longer installed. */
    void detach(String key, Holder holder);

    /** The state of one key, as the core keeps it. */
    interface Holder {

        /**
         * Replaces the state with {@code record}, which the peer's core published (this node is the
         * secondary). Any thread but an event loop.
         *
         * @throws IOException when the record is not one this core reads, or the state cannot be
         *                     kept (an APTPL file that cannot be written): the peer then knows this
         *                     node did not take it
         */
        void install(byte[] record) throws IOException;

        /**
         * Hands the whole current state to {@code sink}, in order with the changes: no change of
         * this key is published while {@code sink} runs (a resync sends it to the peer).
         */
        void snapshot(Sink sink) throws IOException;
    }

    /** Where a {@link Holder#snapshot} goes. */
    interface Sink {
        void accept(byte[] record) throws IOException;
    }
}
