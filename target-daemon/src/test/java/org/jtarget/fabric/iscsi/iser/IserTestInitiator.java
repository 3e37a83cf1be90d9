package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.jtarget.fabric.iscsi.login.LoginNegotiator;
import org.jtarget.fabric.iscsi.login.TextParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.PduParser;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionOpcode;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.rdma.cm.QueuePairBringUp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A minimal iSER initiator for tests, as Linux's ib_iser behaves on the wire: it connects with
 * the iSER CM header (0x80: no zero-based addresses), sends every PDU in a SEND behind an iSER
 * header (0x10, with W and the write STag for a WRITE, R and the read STag for a READ), and
 * lets the target move the data with RDMA READ and WRITE in its one registered region. One
 * command at a time; completions are polled.
 */
public final class IserTestInitiator implements AutoCloseable {

    public static final int RECEIVES = 8;
    public static final int RECEIVE_SIZE = 16 << 10;
    public static final int DATA_SIZE = 1 << 20;
    private static final int SEND_OFFSET = RECEIVES * RECEIVE_SIZE;
    /** The buffer the target RDMA READs a WRITE's data from. */
    public static final int WRITE_AREA = SEND_OFFSET + RECEIVE_SIZE;
    /** The buffer the target RDMA WRITEs a READ's data into. */
    public static final int READ_AREA = WRITE_AREA + DATA_SIZE;
    private static final int SIZE = READ_AREA + DATA_SIZE;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment = arena.allocate(SIZE, 4096);
    public final ByteBuf memory = Unpooled.wrappedBuffer(segment.asByteBuffer()).clear();
    private final MemoryRegion region;
    /**
     * The read area's own registration, named as the read STag: a target may invalidate it with
     * its SCSI Response (SEND with invalidate), after which it is registered again under a new
     * key, as Linux's ib_iser registers each command's buffer anew.
     */
    private MemoryRegion readRegion;
    private final ProtectionDomain pd;
    /** The read STags the target invalidated remotely, in order. */
    public final List<Integer> remoteInvalidations = new ArrayList<>();
    private final CompletionQueue cq = new CompletionQueue(64, null);
    private final QueuePair qp;
    private final BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
    private final WorkRequest wr = new WorkRequest(1);
    private final WorkCompletion[] wcs = {new WorkCompletion()};
    private final PduParser parser = new PduParser(false);
    private CmId id;
    private int cmdSn;
    private int expStatSn;
    private int nextItt = 1;
    private long lunField;
    private boolean immediateData;

    public IserTestInitiator(RdmaDevice device) throws Exception {
        pd = device.allocateProtectionDomain();
        region = pd.registerMemoryRegion(segment,
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        readRegion = registerReadArea();
        qp = device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, 16, RECEIVES, 1, 1));
        QueuePairBringUp.toInit(qp);
        for (int i = 0; i < RECEIVES; i++) {
            postReceive(i);
        }
    }

    /** Connects with the CM private data Linux's ib_iser sends; returns the target's accept private data. */
    public byte[] connect(ConnectionManager cm, SocketAddress target, byte[] privateData) throws Exception {
        id = cm.connect(target, qp, privateData, events::add);
        CmEvent e = events.poll(10, TimeUnit.SECONDS);
        if (e == null || e.type() != CmEventType.ESTABLISHED) {
            throw new IllegalStateException("not connected: " + e);
        }
        return e.privateData();
    }

    /** The next connection event (REJECTED, DISCONNECTED), or null after the timeout. */
    CmEvent nextEvent(long seconds) throws InterruptedException {
        return events.poll(seconds, TimeUnit.SECONDS);
    }

    /**
     * An iSER-assisted login that asks for the full feature phase at once and follows the target
     * through further operational rounds when it wants them; returns the last response's status
     * class and detail (0: success).
     */
    public int login(String initiator, String target) throws Exception {
        List<Map.Entry<String, String>> keys = List.of(Map.entry("InitiatorName", initiator),
                Map.entry("SessionType", "Normal"), Map.entry("TargetName", target),
                Map.entry("RDMAExtensions", "Yes"), Map.entry("HeaderDigest", "None"),
                Map.entry("DataDigest", "None"), Map.entry("ImmediateData", immediateData ? "Yes" : "No"),
                Map.entry("InitialR2T", "Yes"),
                Map.entry("MaxBurstLength", "1048576"));
        int itt = nextItt++;
        int tsih = 0;
        for (int round = 0; round < 4; round++) {
            IscsiPdu login = IscsiPdu.create(UnpooledByteBufAllocator.DEFAULT, Opcode.LOGIN_REQUEST,
                    TextParameters.encode(keys, UnpooledByteBufAllocator.DEFAULT));
            login.immediate(true);
            login.flags(LoginNegotiator.TRANSIT_BIT | LoginNegotiator.STAGE_OPERATIONAL << 2
                    | LoginNegotiator.STAGE_FULL_FEATURE);
            login.isid(0x23d000000001L);
            login.tsih(tsih);
            login.initiatorTaskTag(itt);
            login.cmdSn(0);
            login.expStatSn(expStatSn);
            IscsiPdu response = exchange(login, false, false, 0);
            try {
                if (response.opcode() != Opcode.LOGIN_RESPONSE) {
                    throw new IllegalStateException("login answered with opcode 0x"
                            + Integer.toHexString(response.opcode()));
                }
                cmdSn = response.expCmdSn();
                expStatSn = response.statSn() + 1;
                tsih = response.tsih();
                int status = response.bhs().getUnsignedShort(36); // Status-Class, Status-Detail
                boolean fullFeature = (response.flags() & LoginNegotiator.TRANSIT_BIT) != 0
                        && (response.flags() & 3) == LoginNegotiator.STAGE_FULL_FEATURE;
                if (status != 0 || fullFeature) {
                    return status;
                }
                keys = acceptOffers(keys, TextParameters.parse(response.data()));
            } finally {
                response.release();
            }
        }
        throw new IllegalStateException("no full feature phase after 4 login rounds");
    }

    /** The target's own offers (keys we did not send) accepted with its values: the next round's keys. */
    private static List<Map.Entry<String, String>> acceptOffers(List<Map.Entry<String, String>> sent,
                                                                List<Map.Entry<String, String>> answer) {
        java.util.Set<String> ours = new java.util.HashSet<>();
        for (Map.Entry<String, String> e : sent) {
            ours.add(e.getKey());
        }
        List<Map.Entry<String, String>> next = new java.util.ArrayList<>();
        for (Map.Entry<String, String> e : answer) {
            if (!ours.contains(e.getKey())) {
                next.add(e);
            }
        }
        return next;
    }

    /** Whether the next login asks for ImmediateData=Yes (default No). */
    public void immediateData(boolean on) {
        immediateData = on;
    }

    /** Addresses later commands to {@code lun} (single level, peripheral addressing). */
    public void lun(int lun) {
        lunField = (long) lun << 48;
    }

    /**
     * One SCSI command on the current LUN (0 unless {@link #lun} changed it); data moves through {@link #WRITE_AREA} / {@link #READ_AREA}.
     *
     * @return the SCSI Response (caller releases)
     */
    public IscsiPdu command(byte[] cdb, boolean read, boolean write, int edtl) throws Exception {
        return command(cdb, read, write, edtl, 0);
    }

    /**
     * One SCSI command whose first {@code immediate} bytes of {@link #WRITE_AREA} travel as
     * immediate data in its SEND; its write base offset then points past them, as Linux's ib_iser
     * sets it (buffer address + unsolicited size, {@code iser_prepare_write_cmd}).
     *
     * @return the SCSI Response (caller releases)
     */
    public IscsiPdu command(byte[] cdb, boolean read, boolean write, int edtl, int immediate) throws Exception {
        send(scsiCommand(cdb, read, write, edtl, immediate), read, write, immediate);
        IscsiPdu response = receive();
        expStatSn = response.statSn() + 1;
        return response;
    }

    /**
     * Sends one SCSI command without waiting for its response (loopback provider only: the next
     * SEND reuses the send buffer, which the loopback provider has copied by then).
     *
     * @return its Initiator Task Tag
     */
    public int sendCommand(byte[] cdb, boolean read, boolean write, int edtl) throws Exception {
        IscsiPdu cmd = scsiCommand(cdb, read, write, edtl, 0);
        int itt = cmd.initiatorTaskTag();
        send(cmd, read, write, 0);
        return itt;
    }

    /** Sends an immediate Task Management Function Request for the current LUN without waiting (RFC 7143 11.5). */
    public void sendTaskManagement(int function, int referencedItt) throws Exception {
        IscsiPdu tmf = IscsiPdu.create(UnpooledByteBufAllocator.DEFAULT, Opcode.TASK_MGMT_REQUEST);
        tmf.immediate(true);
        tmf.flags(IscsiPdu.FINAL_BIT | function);
        tmf.lunField(lunField);
        tmf.initiatorTaskTag(nextItt++);
        tmf.bhs().setInt(20, referencedItt); // Referenced Task Tag
        tmf.cmdSn(cmdSn);
        tmf.expStatSn(expStatSn);
        send(tmf, false, false, 0);
    }

    /** Sends an immediate Logout Request closing the session (RFC 7143 11.14) without waiting. */
    public void sendLogout() throws Exception {
        IscsiPdu logout = IscsiPdu.create(UnpooledByteBufAllocator.DEFAULT, Opcode.LOGOUT_REQUEST);
        logout.immediate(true);
        logout.flags(IscsiPdu.FINAL_BIT); // reason 0: close the session
        logout.initiatorTaskTag(nextItt++);
        logout.cmdSn(cmdSn);
        logout.expStatSn(expStatSn);
        send(logout, false, false, 0);
    }

    private IscsiPdu scsiCommand(byte[] cdb, boolean read, boolean write, int edtl, int immediate) {
        ByteBuf data = Unpooled.copiedBuffer(memory.slice(WRITE_AREA, immediate));
        IscsiPdu cmd = IscsiPdu.create(UnpooledByteBufAllocator.DEFAULT, Opcode.SCSI_COMMAND, data);
        cmd.flags(IscsiPdu.FINAL_BIT | (read ? 0x40 : 0) | (write ? 0x20 : 0) | 1 /* simple */);
        cmd.initiatorTaskTag(nextItt++);
        cmd.lunField(lunField);
        cmd.expectedDataTransferLength(edtl);
        cmd.cmdSn(cmdSn++);
        cmd.expStatSn(expStatSn);
        cmd.bhs().setBytes(IscsiPdu.CDB_OFFSET, cdb);
        return cmd;
    }

    /** Sends a PDU (consumed) in a SEND behind its iSER header and waits for the answering PDU. */
    private IscsiPdu exchange(IscsiPdu pdu, boolean read, boolean write, int unsolicited) throws Exception {
        send(pdu, read, write, unsolicited);
        return receive();
    }

    /**
     * Sends a PDU (consumed) in a SEND behind its iSER header.
     *
     * @param unsolicited bytes of {@link #WRITE_AREA} the PDU carries: the write base offset points past them
     */
    private void send(IscsiPdu pdu, boolean read, boolean write, int unsolicited) {
        int dsl = pdu.data().readableBytes();
        pdu.dataSegmentLength(dsl);
        ByteBuf out = memory.slice(SEND_OFFSET, RECEIVE_SIZE).clear();
        out.writerIndex(IserHeader.LENGTH);
        IserHeader.encodeControl(out, 0, write, region.rkey(), region.address() + WRITE_AREA + unsolicited,
                read, readRegion.rkey(), readRegion.address());
        out.writeBytes(pdu.bhs(), 0, IscsiPdu.BHS_LENGTH);
        out.writeBytes(pdu.data(), pdu.data().readerIndex(), dsl);
        out.writeZero((4 - dsl % 4) % 4);
        pdu.release();
        wr.reset();
        wr.wrId = 1000;
        wr.addSge(region.address() + SEND_OFFSET, out.writerIndex(), region.lkey());
        if (qp.postSend(wr) != Errno.OK) {
            throw new IllegalStateException("SEND refused");
        }
    }

    /** The next received PDU, after its iSER header was checked (0x10, no STags). */
    IscsiPdu receive() throws Exception {
        IscsiPdu pdu = poll(10_000);
        if (pdu == null) {
            throw new IllegalStateException("no PDU within 10 s");
        }
        return pdu;
    }

    /** The next received PDU within {@code millis}, or null. */
    public IscsiPdu poll(long millis) throws Exception {
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
            if ((wc.wcFlags & WorkCompletion.WITH_INV) != 0) {
                remotelyInvalidated(wc.invalidatedRkey);
            }
            int slot = (int) wc.wrId;
            ByteBuf in = memory.slice(slot * RECEIVE_SIZE, wc.byteLen);
            if (in.getUnsignedByte(0) != 0x10) {
                throw new IllegalStateException("iSER header flags 0x" + Integer.toHexString(in.getUnsignedByte(0)));
            }
            ByteBuf copy = Unpooled.copiedBuffer(in.slice(IserHeader.LENGTH, wc.byteLen - IserHeader.LENGTH));
            postReceive(slot);
            IscsiPdu pdu = parser.parse(UnpooledByteBufAllocator.DEFAULT, copy, 0,
                    IscsiPdu.BHS_LENGTH + PduParser.ahsLength(copy, 0));
            copy.release();
            return pdu;
        }
        return null;
    }

    private MemoryRegion registerReadArea() throws RdmaException {
        return pd.registerMemoryRegion(segment.asSlice(READ_AREA, DATA_SIZE),
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
    }

    /** A SEND with invalidate named {@code rkey}: only the read area's current STag may be it. */
    private void remotelyInvalidated(int rkey) throws RdmaException {
        if (rkey != readRegion.rkey()) {
            throw new IllegalStateException("the target invalidated STag 0x" + Integer.toHexString(rkey)
                    + ", not the read STag 0x" + Integer.toHexString(readRegion.rkey()));
        }
        remoteInvalidations.add(rkey);
        pd.deregister(readRegion);
        readRegion = registerReadArea();
    }

    private void postReceive(int slot) {
        wr.reset();
        wr.wrId = slot;
        wr.addSge(region.address() + (long) slot * RECEIVE_SIZE, RECEIVE_SIZE, region.lkey());
        if (qp.postRecv(wr) != Errno.OK) {
            throw new IllegalStateException("receive refused");
        }
    }

    /** Sends raw bytes in one SEND (a malformed message). */
    void sendRaw(byte[] bytes) {
        memory.setBytes(SEND_OFFSET, bytes);
        wr.reset();
        wr.wrId = 1001;
        wr.addSge(region.address() + SEND_OFFSET, bytes.length, region.lkey());
        qp.postSend(wr);
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
