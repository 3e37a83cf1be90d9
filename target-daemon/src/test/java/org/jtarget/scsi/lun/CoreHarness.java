package org.jtarget.scsi.lun;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.ImmediateEventExecutor;
import org.jtarget.buffer.ScatterList;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.FabricOps;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.TmfRequest;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A fake fabric around a real {@link ScsiTargetCore}: records every FabricOps call, copies and
 * releases buffers at the end of each command, runs on {@link ImmediateEventExecutor}, and queues
 * I/O of blocking stores in {@link #io} until the test calls {@link #runIo()} (deterministic async).
 */
public final class CoreHarness implements FabricOps {

    public static final ITNexus NEXUS_A = new ITNexus(ProtocolId.ISCSI, "iqn.a", "iqn.a,i,0x1", "iqn.t,t,0x1", 1, 1);
    public static final ITNexus NEXUS_B = new ITNexus(ProtocolId.ISCSI, "iqn.b", "iqn.b,i,0x2", "iqn.t,t,0x1", 1, 1);

    /** The outcome of one command as the fabric saw it. */
    public record Result(String end, int status, byte[] sense, byte[] dataIn) {
        public int senseKey() { return (sense[0] & 0x7F) == 0x72 ? sense[1] & 0xF : sense[2] & 0xF; }
        public int asc() { return (sense[0] & 0x7F) == 0x72 ? sense[2] & 0xFF : sense[12] & 0xFF; }
        public int ascq() { return (sense[0] & 0x7F) == 0x72 ? sense[3] & 0xFF : sense[13] & 0xFF; }
    }

    public final ArrayDeque<Runnable> io = new ArrayDeque<>();
    public final List<String> events = new ArrayList<>();
    public final Map<ScsiCommand, Result> results = new HashMap<>();
    public final List<TmfRequest> tmfResponses = new ArrayList<>();
    public final ScsiTargetCore core;
    public final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    public boolean rejectIo;
    /** When true writePending does not deliver data; the test calls {@link #deliver}. */
    public boolean holdDataOut;
    /** When true commandParked refuses the wait (a fabric whose initiator ignores its window). */
    public boolean refusePark;
    private final Map<ScsiCommand, byte[]> pendingData = new HashMap<>();

    public CoreHarness(List<LogicalUnitDefinition> luns) {
        this(luns, (java.nio.file.Path) null);
    }

    /** With persistent reservation state kept under {@code stateDir} (null: none). */
    public CoreHarness(List<LogicalUnitDefinition> luns, java.nio.file.Path stateDir) {
        this("iqn.t", luns, stateDir, new org.jtarget.scsi.alua.TargetPortGroups(), new LogicalUnitRegistry());
    }

    /** With these target port groups (ALUA). */
    public CoreHarness(List<LogicalUnitDefinition> luns, java.nio.file.Path stateDir,
                       org.jtarget.scsi.alua.TargetPortGroups portGroups) {
        this("iqn.t", luns, stateDir, portGroups, new LogicalUnitRegistry());
    }

    /** Target {@code targetName} whose LUs join {@code registry} (several harnesses may share one). */
    public CoreHarness(String targetName, List<LogicalUnitDefinition> luns, java.nio.file.Path stateDir,
                       LogicalUnitRegistry registry) {
        this(targetName, luns, stateDir, new org.jtarget.scsi.alua.TargetPortGroups(), registry);
    }

    private CoreHarness(String targetName, List<LogicalUnitDefinition> luns, java.nio.file.Path stateDir,
                        org.jtarget.scsi.alua.TargetPortGroups portGroups, LogicalUnitRegistry registry) {
        this(targetName, luns, stateDir, portGroups, registry, NodeAcl.ANY);
    }

    /** Target "iqn.t" with this node ACL (LUN masking, read-only mappings). */
    public CoreHarness(List<LogicalUnitDefinition> luns, NodeAcl acl) {
        this("iqn.t", luns, null, new org.jtarget.scsi.alua.TargetPortGroups(), new LogicalUnitRegistry(), acl);
    }

    private CoreHarness(String targetName, List<LogicalUnitDefinition> luns, java.nio.file.Path stateDir,
                        org.jtarget.scsi.alua.TargetPortGroups portGroups, LogicalUnitRegistry registry, NodeAcl acl) {
        Executor manual = r -> {
            if (rejectIo) {
                throw new RejectedExecutionException("full");
            }
            io.add(r);
        };
        core = new ScsiTargetCore(targetName, luns, new LunIoExecutors(name -> manual), stateDir, portGroups, registry,
                acl);
    }

    /** One LU 0 on {@code store}. */
    public static CoreHarness of(TestStore store, boolean readOnly) {
        return new CoreHarness(List.of(new LogicalUnitDefinition(0, store, readOnly, false)));
    }

    public void runIo() {
        Runnable r;
        while ((r = io.poll()) != null) {
            r.run();
        }
    }

    /** Submits a command from {@code nexus} with EDTL {@code edtl} and data-out {@code out} (may be null). */
    public ScsiCommand submit(ITNexus nexus, int lun, long tag, byte[] cdb, int edtl, byte[] out) {
        ScsiCommand cmd = new ScsiCommand();
        cmd.cdb(cdb, 0, cdb.length);
        cmd.lun(lun);
        cmd.tag(tag);
        cmd.nexus(nexus);
        cmd.fabric(this);
        cmd.eventLoop(ImmediateEventExecutor.INSTANCE);
        cmd.alloc(alloc);
        cmd.expectedDataTransferLength(edtl);
        cmd.direction(out != null ? DataDirection.WRITE : DataDirection.READ);
        if (out != null) {
            pendingData.put(cmd, out);
        }
        core.submit(cmd);
        return cmd;
    }

    /** Submit from NEXUS_A to LUN 0 and run any queued I/O; returns the result. */
    public Result run(byte[] cdb, int edtl, byte[] out) {
        ScsiCommand cmd = submit(NEXUS_A, 0, 1, cdb, edtl, out);
        runIo();
        return results.get(cmd);
    }

    /** Submit from {@code nexus} to LUN 0 and run any queued I/O; returns the result. */
    public Result run(ITNexus nexus, byte[] cdb, int edtl, byte[] out) {
        ScsiCommand cmd = submit(nexus, 0, 1, cdb, edtl, out);
        runIo();
        return results.get(cmd);
    }

    public Result run(byte[] cdb) {
        return run(cdb, 65536, null);
    }

    @Override
    public void writePending(ScsiCommand cmd) {
        events.add("writePending " + cmd.dataOutLength());
        if (!holdDataOut) {
            deliver(cmd);
        }
    }

    /** Delivers min(EDTL, dataOutLength) bytes of the command's data-out and completes it. */
    public void deliver(ScsiCommand cmd) {
        byte[] out = pendingData.remove(cmd);
        int n = Math.min(Math.min(cmd.expectedDataTransferLength(), cmd.dataOutLength()),
                out == null ? 0 : out.length);
        ScatterList segments = new ScatterList();
        if (n > 0) {
            segments.add(alloc.directBuffer(n).writeBytes(out, 0, n));
        }
        cmd.dataOut(segments);
        core.dataOutComplete(cmd);
    }

    @Override
    public void queueDataIn(ScsiCommand cmd) {
        end("dataIn", cmd);
    }

    @Override
    public void queueStatus(ScsiCommand cmd) {
        end("status", cmd);
    }

    @Override
    public void abortedTask(ScsiCommand cmd) {
        end("aborted", cmd);
    }

    @Override
    public boolean commandParked(ScsiCommand cmd) {
        events.add("parked " + cmd.tag());
        return !refusePark;
    }

    @Override
    public void commandUnparked(ScsiCommand cmd) {
        events.add("unparked " + cmd.tag());
    }

    @Override
    public void queueTmResponse(TmfRequest tmf) {
        events.add("tmf " + tmf.response());
        tmfResponses.add(tmf);
    }

    private void end(String how, ScsiCommand cmd) {
        if (results.containsKey(cmd)) {
            throw new AssertionError("command ended twice");
        }
        events.add(how);
        byte[] sense = java.util.Arrays.copyOf(cmd.sense(), cmd.senseLength());
        byte[] in = null;
        ByteBuf b = cmd.dataIn();
        if (b != null) {
            in = new byte[b.readableBytes()];
            b.getBytes(b.readerIndex(), in);
        }
        results.put(cmd, new Result(how, cmd.status(), sense, in));
        cmd.releaseBuffers();
        pendingData.remove(cmd);
    }

    public TmfRequest tmf(TmfRequest.Function f, ITNexus nexus, int lun, long tag) {
        TmfRequest t = new TmfRequest(f, lun, tag, nexus, this, ImmediateEventExecutor.INSTANCE, null);
        core.submitTmf(t);
        return t;
    }
}
