package org.jtarget.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.jtarget.fabric.iscsi.pdu.Crc32c;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.tcp.IscsiPduFramer;
import org.jtarget.fabric.iscsi.tcp.IscsiPduEncoder;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.Random;

/**
 * The iSCSI PDU codec (RFC 7143 11.2) in a Netty pipeline ({@link EmbeddedChannel}, the daemon's
 * default allocator): decoding a SCSI Command with 4 KiB of immediate data, encoding a SCSI
 * Response and a 4 KiB Data-In with status, with and without HeaderDigest and DataDigest
 * (CRC32C). Every buffer the codec hands out is released in the benchmark method.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"--enable-native-access=ALL-UNNAMED", "-Dio.netty.leakDetection.level=disabled"})
public class PduCodecBenchmark {

    private static final int DATA_LENGTH = 4096;
    private static final int MAX_RECV_DATA_SEGMENT_LENGTH = 262144;
    /** SCSI Command flags (RFC 7143 11.3.1): F and W, task attribute SIMPLE (1). */
    private static final int COMMAND_FLAGS = IscsiPdu.FINAL_BIT | 0x20 | 0x01;
    /** Data-In flags (RFC 7143 11.7.1): F and S (status in the last Data-In). */
    private static final int DATA_IN_FLAGS = IscsiPdu.FINAL_BIT | 0x01;

    /** HeaderDigest and DataDigest both CRC32C, or both None. */
    @Param({"false", "true"})
    boolean digests;

    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    private EmbeddedChannel decoder;
    private EmbeddedChannel encoder;
    /** One whole SCSI Command PDU as it arrives from TCP (BHS, digests, 4 KiB immediate data). */
    private ByteBuf commandFrame;
    /** The data a READ(10) of 4 KiB returns, sliced into each Data-In like TaskSequencer does. */
    private ByteBuf readData;
    private int itt;

    @Setup
    public void setUp() {
        IscsiPduFramer d = new IscsiPduFramer(MAX_RECV_DATA_SEGMENT_LENGTH);
        d.configure(digests, digests, MAX_RECV_DATA_SEGMENT_LENGTH);
        decoder = new EmbeddedChannel(d);
        IscsiPduEncoder e = new IscsiPduEncoder();
        e.configure(digests, digests);
        encoder = new EmbeddedChannel(e);
        byte[] payload = new byte[DATA_LENGTH];
        new Random(7).nextBytes(payload);
        commandFrame = commandFrame(payload);
        readData = alloc.directBuffer(DATA_LENGTH, DATA_LENGTH).writeBytes(payload);
    }

    /** A WRITE(10) of 8 blocks of 512 bytes at LBA 2048 with its data as immediate data. */
    private ByteBuf commandFrame(byte[] payload) {
        ByteBuf f = alloc.directBuffer();
        f.writeByte(Opcode.SCSI_COMMAND).writeByte(COMMAND_FLAGS).writeShort(0);
        f.writeByte(0).writeMedium(DATA_LENGTH);
        f.writeLong(0);                     // LUN 0
        f.writeInt(0x1234);                 // ITT
        f.writeInt(DATA_LENGTH);            // Expected Data Transfer Length
        f.writeInt(1).writeInt(1);          // CmdSN, ExpStatSN
        f.writeByte(0x2a).writeByte(0).writeInt(2048).writeByte(0).writeShort(8).writeByte(0);
        f.writeZero(IscsiPdu.BHS_LENGTH - f.writerIndex());
        if (digests) {
            f.writeIntLE(Crc32c.of(f, 0, IscsiPdu.BHS_LENGTH));
        }
        int dataStart = f.writerIndex();
        f.writeBytes(payload);
        if (digests) {
            f.writeIntLE(Crc32c.of(f, dataStart, DATA_LENGTH));
        }
        return f;
    }

    @TearDown
    public void tearDown() {
        commandFrame.release();
        readData.release();
        if (decoder.finishAndReleaseAll() | encoder.finishAndReleaseAll()) {
            throw new IllegalStateException("a benchmark left messages in a channel");
        }
    }

    @Benchmark
    public void decodeScsiCommand(Blackhole bh) {
        decoder.writeInbound(commandFrame.retainedDuplicate());
        IscsiPdu pdu = decoder.readInbound();
        bh.consume(pdu.expectedDataTransferLength());
        bh.consume(pdu.data().getByte(0));
        pdu.release();
    }

    @Benchmark
    public void encodeScsiResponse(Blackhole bh) {
        IscsiPdu rsp = IscsiPdu.create(alloc, Opcode.SCSI_RESPONSE, Unpooled.EMPTY_BUFFER);
        rsp.flags(IscsiPdu.FINAL_BIT);
        rsp.initiatorTaskTag(itt++);
        rsp.statSn(itt);
        rsp.expCmdSn(itt + 1);
        rsp.maxCmdSn(itt + 128);
        encoder.writeOutbound(rsp);
        drain(bh);
    }

    @Benchmark
    public void encodeDataIn(Blackhole bh) {
        IscsiPdu pdu = IscsiPdu.create(alloc, Opcode.SCSI_DATA_IN, readData.retainedSlice(0, DATA_LENGTH));
        pdu.flags(DATA_IN_FLAGS);
        pdu.initiatorTaskTag(itt++);
        pdu.targetTransferTag(IscsiPdu.RESERVED_TAG);
        pdu.statSn(itt);
        pdu.expCmdSn(itt + 1);
        pdu.maxCmdSn(itt + 128);
        encoder.writeOutbound(pdu);
        drain(bh);
    }

    /** Releases the gathering-write pieces the encoder produced, as the transport would. */
    private void drain(Blackhole bh) {
        ByteBuf piece;
        while ((piece = encoder.readOutbound()) != null) {
            bh.consume(piece.readableBytes());
            piece.release();
        }
    }
}
