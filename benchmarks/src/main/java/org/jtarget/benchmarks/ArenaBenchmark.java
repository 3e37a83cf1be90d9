package org.jtarget.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.buffer.BufferPool;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Allocate + release of one I/O buffer: the pinned arena ({@code BufferPool.ioBuffer}, a free-list
 * pop and push) next to Netty's pooled allocator ({@code directBuffer}, what READ used before), on
 * one and on two threads sharing the pool (the daemon's event loops and I/O threads do).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"--enable-native-access=ALL-UNNAMED", "-Dio.netty.leakDetection.level=disabled"})
public class ArenaBenchmark {

    /** A 4 KiB block and a 64 KiB READ. */
    @Param({"4096", "65536"})
    int size;

    private BufferPool pool;
    private ByteBufAllocator pooled;

    @Setup
    public void open() throws IOException {
        pool = BufferPool.create(2, 64L << 20, true);
        pooled = pool.allocator();
    }

    @TearDown
    public void close() {
        pool.close();
    }

    private static long cycle(ByteBuf buf) {
        long address = buf.memoryAddress();
        buf.release();
        return address;
    }

    @Benchmark
    @Threads(1)
    public long arena1Thread() {
        return cycle(pool.ioBuffer(size));
    }

    @Benchmark
    @Threads(2)
    public long arena2Threads() {
        return cycle(pool.ioBuffer(size));
    }

    @Benchmark
    @Threads(1)
    public long pooled1Thread() {
        return cycle(pooled.directBuffer(size));
    }

    @Benchmark
    @Threads(2)
    public long pooled2Threads() {
        return cycle(pooled.directBuffer(size));
    }
}
