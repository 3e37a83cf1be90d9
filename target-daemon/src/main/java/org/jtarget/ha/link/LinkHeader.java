package org.jtarget.ha.link;

import io.netty.buffer.ByteBuf;

/**
 * The fixed 32-byte header every message of the replication link starts with (one message per
 * RDMA SEND), big-endian:
 *
 * <pre>
 * 0  type u8 | flags u8 | store u16 | slot u16 | status u8 | reserved u8
 * 8  sequence u64      the sender's request number; an ACK carries the number it answers
 * 16 lba u64           WRITE, UNMAP, FLUSH, CHANGED: first block
 * 24 blocks u64        WRITE, UNMAP, FLUSH, CHANGED: block count (WRITE: its bytes are in slot {@code slot});
 *                      STATE: the record's length in bytes (in slot {@code slot});
 *                      ACK: how many more requests it answers (their entries in the body)
 * 32 body              HELLO: {@link Hello}; ACK with a failure: the reason as UTF-8 text; ACK of
 *                      more than one request (all applied): per further request its slot u16 and
 *                      sequence u64
 * </pre>
 *
 * A WRITE's data is RDMA WRITTEN into the receiver's staging slot before the SEND of its header
 * leaves (RDMAP delivers a SEND only after the WRITEs posted before it are placed, RFC 5040 5.5),
 * so the receiver finds the data complete when the header arrives.
 */
public final class LinkHeader {

    public static final int LENGTH = 32;

    /** The peer's state, first message of each side. */
    public static final int HELLO = 1;
    /** Nothing but "I am alive" (any message proves it; this one is sent when nothing else was). */
    public static final int HEARTBEAT = 2;
    /** Write {@code blocks} blocks at {@code lba} from staging slot {@code slot}. */
    public static final int WRITE = 3;
    /** Unmap (deallocate) blocks. */
    public static final int UNMAP = 4;
    /** Make blocks durable (SYNCHRONIZE CACHE). */
    public static final int FLUSH = 5;
    /**
     * The answer to a WRITE, UNMAP, FLUSH, CHANGED or STATE: {@code status} {@link #OK} or
     * {@link #FAILED}; one ACK answers every request the receiver applied in one pass of its loop
     * (coalesced: the first in the header, {@code blocks} more in the body).
     */
    public static final int ACK = 6;
    /** The sender stops (a clean shutdown): the link ending next is no failure of the sender. */
    public static final int GOODBYE = 7;
    /**
     * A planned switchover: the sender, the primary, stopped taking changes and every change it
     * acknowledged was applied here; the receiver serves from now on.
     */
    public static final int HANDOVER = 8;
    /**
     * From a new secondary whose HELLO said {@link Hello#DATA_CHANGED}: blocks of the store that it
     * changed on its own (writes in flight when it crashed as the primary), which the primary must
     * copy to it besides what it logged itself; with {@link #FLAG_COMPLETE} it ends the store's
     * list (that message's blocks may be 0). Answered by an ACK like a WRITE.
     */
    public static final int CHANGED = 9;
    /**
     * The SCSI state of logical units on store {@code store} (persistent reservations, mode
     * parameters): {@code blocks} bytes in staging slot {@code slot}, RDMA WRITTEN like a WRITE's
     * data; answered by an ACK once the receiver installed it. The bytes are the node's framing of
     * the core's opaque record ({@code org.jtarget.ha.StateMessage}).
     */
    public static final int STATE = 10;

    /** WRITE flag: force unit access (the data is durable when acknowledged). */
    public static final int FLAG_FUA = 1;
    /**
     * FLUSH flag: the resync of the store is over, the receiver's copy is whole; the receiver
     * records it durably before it answers. CHANGED flag: the last of the store's list.
     */
    public static final int FLAG_COMPLETE = 2;
    /**
     * UNMAP flag: the blocks must read as zeros afterwards (a resync sends a hole of a thin store
     * so); a receiver whose store does not promise that refuses, and the sender sends data.
     */
    public static final int FLAG_ZEROES = 4;

    public static final int OK = 0;
    public static final int FAILED = 1;

    private LinkHeader() {
    }

    /** Writes a header at the buffer's writer index. */
    public static void write(ByteBuf b, int type, int flags, int store, int slot, int status, long sequence,
                             long lba, long blocks) {
        b.writeByte(type).writeByte(flags).writeShort(store).writeShort(slot).writeByte(status).writeByte(0);
        b.writeLong(sequence).writeLong(lba).writeLong(blocks);
    }

    public static int type(ByteBuf b) {
        return b.getUnsignedByte(b.readerIndex());
    }

    public static int flags(ByteBuf b) {
        return b.getUnsignedByte(b.readerIndex() + 1);
    }

    public static int store(ByteBuf b) {
        return b.getUnsignedShort(b.readerIndex() + 2);
    }

    public static int slot(ByteBuf b) {
        return b.getUnsignedShort(b.readerIndex() + 4);
    }

    public static int status(ByteBuf b) {
        return b.getUnsignedByte(b.readerIndex() + 6);
    }

    public static long sequence(ByteBuf b) {
        return b.getLong(b.readerIndex() + 8);
    }

    public static long lba(ByteBuf b) {
        return b.getLong(b.readerIndex() + 16);
    }

    public static long blocks(ByteBuf b) {
        return b.getLong(b.readerIndex() + 24);
    }

    /** The name of a message type, for log lines. */
    public static String typeName(int type) {
        return switch (type) {
            case HELLO -> "HELLO";
            case HEARTBEAT -> "HEARTBEAT";
            case WRITE -> "WRITE";
            case UNMAP -> "UNMAP";
            case FLUSH -> "FLUSH";
            case ACK -> "ACK";
            case GOODBYE -> "GOODBYE";
            case HANDOVER -> "HANDOVER";
            case CHANGED -> "CHANGED";
            case STATE -> "STATE";
            default -> "type " + type;
        };
    }
}
