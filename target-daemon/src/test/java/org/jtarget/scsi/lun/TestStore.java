package org.jtarget.scsi.lun;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** An in-test memory store that records calls and can inject failures. */
public class TestStore implements Backstore {

    public final byte[] data;
    public final BackstoreInfo info;
    public final boolean nonBlocking;
    public final List<String> calls = new ArrayList<>();
    public IOException failNext;
    public RuntimeException bugNext;
    /** True: READs are served by {@link #tryReadNonBlocking} (as a page cache would). */
    public boolean cached;

    public TestStore(int blockSize, long blocks, boolean nonBlocking, boolean thin) {
        this(blockSize, blocks, nonBlocking, thin, 0);
    }

    /** A store that reports {@code maxTransferBlocks} as its largest transfer (0 = no limit). */
    public TestStore(int blockSize, long blocks, boolean nonBlocking, boolean thin, int maxTransferBlocks) {
        this(blockSize, blocks, nonBlocking, thin, maxTransferBlocks, "test-store");
    }

    /** With its own identity seed, so its LU has its own NAA designator. */
    public TestStore(int blockSize, long blocks, boolean nonBlocking, boolean thin, int maxTransferBlocks,
                     String identitySeed) {
        this.data = new byte[(int) (blockSize * blocks)];
        this.info = new BackstoreInfo(blockSize, blocks, true, thin, false, maxTransferBlocks, 0, identitySeed);
        this.nonBlocking = nonBlocking;
    }

    public static StoreException error(StoreException.Kind kind) {
        return new StoreException(kind, "injected", null);
    }

    @Override public BackstoreInfo info() { return info; }
    @Override public String name() { return "test"; }
    @Override public boolean isNonBlocking() { return nonBlocking; }

    private void maybeFail() throws IOException {
        if (bugNext != null) {
            RuntimeException e = bugNext;
            bugNext = null;
            throw e;
        }
        if (failNext != null) {
            IOException e = failNext;
            failNext = null;
            throw e;
        }
    }

    @Override
    public boolean tryReadNonBlocking(long lba, int blocks, ByteBuf dst) {
        if (!cached) {
            return false;
        }
        calls.add("cached read " + lba + " " + blocks);
        dst.writeBytes(data, (int) lba * info.blockSize(), blocks * info.blockSize());
        return true;
    }

    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        calls.add("read " + lba + " " + blocks);
        maybeFail();
        dst.writeBytes(data, (int) lba * info.blockSize(), blocks * info.blockSize());
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        calls.add("write " + lba + " " + src.readableBytes() / info.blockSize() + (fua ? " fua" : ""));
        maybeFail();
        src.getBytes(src.readerIndex(), data, (int) lba * info.blockSize(), src.readableBytes());
    }

    @Override
    public void flush(long lba, long blocks) throws IOException {
        calls.add("flush " + lba + " " + blocks);
        maybeFail();
    }

    /** A thin test store deallocates: LBPME = 1 on its LU. */
    @Override
    public boolean supportsUnmap() {
        return info.thin();
    }

    /** Records the call and zeroes the blocks (LBPRZ). */
    @Override
    public void unmap(long lba, long blocks) throws IOException {
        calls.add("unmap " + lba + " " + blocks);
        maybeFail();
        java.util.Arrays.fill(data, (int) lba * info.blockSize(), (int) (lba + blocks) * info.blockSize(), (byte) 0);
    }

    @Override public void close() { }
}
