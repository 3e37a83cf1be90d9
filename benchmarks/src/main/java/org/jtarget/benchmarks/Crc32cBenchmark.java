package org.jtarget.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.fabric.iscsi.pdu.Crc32c;
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

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * The iSCSI digest (RFC 7143 13.1, CRC32C) over a direct buffer of the daemon's allocator: the
 * project's {@link Crc32c} (what the codec runs per PDU) next to {@link CRC32C} on the same
 * bytes, so a regression in the wrapper shows against the JDK's intrinsic.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"--enable-native-access=ALL-UNNAMED", "-Dio.netty.leakDetection.level=disabled"})
public class Crc32cBenchmark {

    /** A 4 KiB command's data segment, and a 256 KiB one (the default MaxRecvDataSegmentLength). */
    @Param({"4096", "262144"})
    int size;

    private ByteBuf buf;
    private ByteBuffer nio;
    private final Crc32c crc = new Crc32c();
    private final CRC32C jdk = new CRC32C();

    @Setup
    public void fill() {
        byte[] bytes = new byte[size];
        new Random(42).nextBytes(bytes);
        buf = ByteBufAllocator.DEFAULT.directBuffer(size, size).writeBytes(bytes);
        nio = buf.nioBuffer(0, size);
    }

    @TearDown
    public void release() {
        buf.release();
    }

    @Benchmark
    public int projectCrc32c() {
        return crc.reset().update(buf, 0, size).value();
    }

    @Benchmark
    public long jdkCrc32c() {
        jdk.reset();
        nio.clear();
        jdk.update(nio);
        return jdk.getValue();
    }
}
