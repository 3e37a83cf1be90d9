package org.jtarget.fabric.srp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.srp.iu.SrpIu;
import org.jtarget.fabric.srp.iu.SrpLoginRequest;
import org.jtarget.fabric.srp.iu.SrpPortId;
import org.jtarget.fabric.srp.iu.SrpResponse;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionOpcode;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.rdma.cm.QueuePairBringUp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A minimal SRP initiator for tests, as Linux's ib_srp behaves on the wire over rdma_cm: the
 * 56-byte SRP_LOGIN_REQ in the connect request (asking for 68 + 8 KiB IUs and immediate data at
 * 68), SRP_CMDs in SENDs with a direct descriptor (or an indirect one, or immediate data) naming
 * its one registered region, and the target moving data with RDMA READ and WRITE. One command at a
 * time; completions are polled.
 */
public final class SrpTestInitiator implements AutoCloseable {

    public static final int RECEIVES = 8;
    public static final int RECEIVE_SIZE = 512;
    public static final int IU_LENGTH = 68 + 8192;
    public static final int IMMEDIATE_OFFSET = 68;
    public static final int DATA_SIZE = 1 << 20;
    private static final int SEND_OFFSET = RECEIVES * RECEIVE_SIZE;
    /** The buffer the target RDMA READs a WRITE's data from. */
    public static final int WRITE_AREA = 64 << 10;
    /** The buffer the target RDMA WRITEs a READ's data into. */
    public static final int READ_AREA = WRITE_AREA + DATA_SIZE;
    private static final int SIZE = READ_AREA + DATA_SIZE;
    public static final SrpPortId INITIATOR_PORT = new SrpPortId(0, 0x525400fffe123456L);

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment = arena.allocate(SIZE, 4096);
    public final ByteBuf memory = Unpooled.wrappedBuffer(segment.asByteBuffer()).clear();
    private final MemoryRegion region;
    private final CompletionQueue cq = new CompletionQueue(64, null);
    private final QueuePair qp;
    private final BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
    private final WorkRequest wr = new WorkRequest(1);
    private final WorkCompletion[] wcs = {new WorkCompletion()};
    private CmId id;
    private long nextTag = 1;

    public SrpTestInitiator(RdmaDevice device) throws Exception {
        ProtectionDomain pd = device.allocateProtectionDomain();
        region = pd.registerMemoryRegion(segment,
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        qp = device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, 16, RECEIVES, 1, 1));
        QueuePairBringUp.toInit(qp);
        for (int i = 0; i < RECEIVES; i++) {
            postReceive(i);
        }
    }

    /** The login request Linux's ib_srp sends to target port {@code targetPort} (single channel, immediate data). */
    public static SrpLoginRequest linuxLogin(SrpPortId targetPort) {
        return new SrpLoginRequest(SrpLoginRequest.Form.RDMA_CM, 0, IU_LENGTH,
                SrpIu.BUFFER_FORMAT_DIRECT | SrpIu.BUFFER_FORMAT_INDIRECT, SrpLoginRequest.IMMEDIATE_DATA_REQUESTED,
                IMMEDIATE_OFFSET, INITIATOR_PORT, targetPort);
    }

    /** Connects with {@code login} in the private data; the first event (ESTABLISHED or REJECTED). */
    public CmEvent connect(ConnectionManager cm, SocketAddress target, SrpLoginRequest login) throws Exception {
        id = cm.connect(target, qp, login.encode(), events::add);
        CmEvent e = events.poll(10, TimeUnit.SECONDS);
        if (e == null) {
            throw new IllegalStateException("no answer to the login");
        }
        return e;
    }

    /** The next connection event (DISCONNECTED), or null after the timeout. */
    public CmEvent nextEvent(long seconds) throws InterruptedException {
        return events.poll(seconds, TimeUnit.SECONDS);
    }

    /** A fresh tag for an IU. */
    public long tag() {
        return nextTag++;
    }

    /**
     * An SRP_CMD at the start of the send area, without descriptors: opcode, buffer formats, tag,
     * LUN, task attribute and a CDB of up to 16 bytes; the caller appends descriptors.
     */
    public ByteBuf commandIu(long tag, int lun, byte[] cdb, int dataOutFormat, int dataInFormat) {
        ByteBuf b = memory.slice(SEND_OFFSET, IU_LENGTH).clear();
        b.writeByte(SrpIu.CMD);
        b.writeZero(4);
        b.writeByte(dataOutFormat << 4 | dataInFormat);
        b.writeZero(2); // descriptor counts
        b.writeLong(tag);
        b.writeZero(4);
        b.writeLong((long) lun << 48);
        b.writeZero(4); // reserved, task attribute SIMPLE, reserved, no additional CDB
        byte[] cdb16 = new byte[16];
        System.arraycopy(cdb, 0, cdb16, 0, cdb.length);
        b.writeBytes(cdb16);
        return b;
    }

    /** A direct descriptor over {@code length} bytes of the region from {@code offset}. */
    public void direct(ByteBuf iu, int offset, int length) {
        iu.writeLong(region.address() + offset);
        iu.writeInt(region.rkey());
        iu.writeInt(length);
    }

    /** SENDs the IU built in the send area and waits for the target's answer. */
    public ByteBuf exchange(ByteBuf iu) throws Exception {
        send(iu);
        return receive();
    }

    /** One command with a direct data-in descriptor over READ_AREA (or none when 0): its SRP_RSP. */
    public SrpResponse read(int lun, byte[] cdb, int length) throws Exception {
        ByteBuf iu = commandIu(tag(), lun, cdb, 0, length > 0 ? 1 : 0);
        if (length > 0) {
            direct(iu, READ_AREA, length);
        }
        return response(exchange(iu));
    }

    /** One command with a direct data-out descriptor over WRITE_AREA: its SRP_RSP. */
    public SrpResponse write(int lun, byte[] cdb, int length) throws Exception {
        ByteBuf iu = commandIu(tag(), lun, cdb, 1, 0);
        direct(iu, WRITE_AREA, length);
        return response(exchange(iu));
    }

    /** One command whose data-out (the first {@code length} bytes of WRITE_AREA) travels as immediate data. */
    public SrpResponse writeImmediate(int lun, byte[] cdb, int length) throws Exception {
        ByteBuf iu = commandIu(tag(), lun, cdb, 3, 0);
        iu.writeInt(length);
        iu.writerIndex(IMMEDIATE_OFFSET);
        iu.writeBytes(memory, WRITE_AREA, length);
        return response(exchange(iu));
    }

    /** Decodes an SRP_RSP (releases the buffer). */
    public static SrpResponse response(ByteBuf in) {
        try {
            return switch (SrpResponse.decode(in, 0, in.readableBytes())) {
                case Decoded.Ok<SrpResponse> ok -> ok.value();
                case Decoded.Malformed<SrpResponse> m -> throw new IllegalStateException(
                        "not an SRP_RSP (opcode 0x" + Integer.toHexString(in.getUnsignedByte(0)) + "): " + m.reason());
            };
        } finally {
            in.release();
        }
    }

    /** SENDs the readable bytes of {@code iu} (built in the send area). */
    public void send(ByteBuf iu) {
        wr.reset();
        wr.wrId = 1000;
        wr.addSge(region.address() + SEND_OFFSET, iu.writerIndex(), region.lkey());
        if (qp.postSend(wr) != Errno.OK) {
            throw new IllegalStateException("SEND refused");
        }
    }

    /** SENDs raw bytes (a malformed IU). */
    public void sendRaw(byte[] bytes) {
        ByteBuf b = memory.slice(SEND_OFFSET, IU_LENGTH).clear();
        b.writeBytes(bytes);
        send(b);
    }

    /** The next IU the target sent (a copy; caller releases). */
    public ByteBuf receive() throws Exception {
        ByteBuf iu = poll(10_000);
        if (iu == null) {
            throw new IllegalStateException("no IU within 10 s");
        }
        return iu;
    }

    /** The next IU within {@code millis}, or null. */
    public ByteBuf poll(long millis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            if (cq.poll(wcs, 1) == 0) {
                Thread.sleep(1);
                continue;
            }
            WorkCompletion wc = wcs[0];
            if (wc.status != WorkCompletionStatus.SUCCESS) {
                throw new IllegalStateException("completion failed: " + wc);
            }
            if (wc.opcode != WorkCompletionOpcode.RECV) {
                continue;
            }
            int slot = (int) wc.wrId;
            ByteBuf copy = Unpooled.copiedBuffer(memory.slice(slot * RECEIVE_SIZE, wc.byteLen));
            postReceive(slot);
            return copy;
        }
        return null;
    }

    private void postReceive(int slot) {
        wr.reset();
        wr.wrId = slot;
        wr.addSge(region.address() + (long) slot * RECEIVE_SIZE, RECEIVE_SIZE, region.lkey());
        if (qp.postRecv(wr) != Errno.OK) {
            throw new IllegalStateException("receive refused");
        }
    }

    /** The region's virtual address of byte {@code offset} (for hand-made descriptors). */
    public long address(int offset) {
        return region.address() + offset;
    }

    public int rkey() {
        return region.rkey();
    }

    @Override
    public void close() {
        if (id != null) {
            id.disconnect();
        }
        qp.destroy();
        arena.close();
    }
}
