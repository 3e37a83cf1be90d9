package org.jtarget.initiator.rdma;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.ForwardingBackstore;
import org.jtarget.buffer.ScatterList;

/**
 * A store whose reads and writes can be made to fail (IOException, as a broken disk) or to wait
 * until released (a stuck disk), around another store.
 */
public final class GatedBackstore extends ForwardingBackstore {

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released;
    private final boolean failing;

    private GatedBackstore(Backstore inner, boolean failing, boolean held) {
        super(inner);
        this.failing = failing;
        this.released = new CountDownLatch(held ? 1 : 0);
    }

    /** Every access fails with an IOException. */
    public static GatedBackstore failing(Backstore inner) {
        return new GatedBackstore(inner, true, false);
    }

    /** Every access waits for {@link #release()}. */
    public static GatedBackstore held(Backstore inner) {
        return new GatedBackstore(inner, false, true);
    }

    /** Waits until an access has reached the store. */
    public void awaitAccess() throws InterruptedException {
        entered.await();
    }

    public void release() {
        released.countDown();
    }

    private void pass() throws IOException {
        entered.countDown();
        try {
            released.await();
        } catch (InterruptedException e) {
            throw new InterruptedIOException("store closed while held");
        }
        if (failing) {
            throw new IOException("injected store failure");
        }
    }

    @Override
    public boolean isNonBlocking() {
        return false;
    }

    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        pass();
        super.read(lba, blocks, dst);
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        pass();
        super.write(lba, src, fua);
    }

    @Override
    public void write(long lba, ScatterList src, int length, boolean fua) throws IOException {
        pass();
        super.write(lba, src, length, fua);
    }

    /** Never past the gate without waiting: the blocking read is the one that is held or fails. */
    @Override
    public boolean tryReadNonBlocking(long lba, int blocks, ByteBuf dst) {
        return false;
    }

    @Override
    public void close() throws IOException {
        release();
        super.close();
    }
}
