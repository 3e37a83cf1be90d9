package org.jtarget.backstore.spi;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ScatterList;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A store around another one (its delegate) that passes every call through as it stands: the base
 * of the decorators (a partition, encryption, HA replication next), which override only what they
 * change. Capability queries ({@link #directIo}, {@link #backingFile}, {@link #isNonBlocking})
 * answer for the store beneath, so no caller needs to know how stores are stacked.
 *
 * <p>Every method forwards, the data methods too. A decorator that changes addresses (a partition
 * shifts every LBA) or data (encryption) must override each method that carries an LBA or data:
 * both {@code write}s, {@link #read}, {@link #tryReadNonBlocking}, {@link #flush}, {@link #unmap},
 * {@link #unmapGranularityBlocks}, {@link #provisioningRun}, and decide about
 * {@link #supportsCryptoErase}; a method added to {@link Backstore} later must be added here.
 */
public abstract class ForwardingBackstore implements Backstore {

    private final Backstore delegate;

    protected ForwardingBackstore(Backstore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The store beneath. */
    protected final Backstore delegate() {
        return delegate;
    }

    @Override
    public BackstoreInfo info() {
        return delegate.info();
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public boolean isNonBlocking() {
        return delegate.isNonBlocking();
    }

    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        delegate.read(lba, blocks, dst);
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        delegate.write(lba, src, fua);
    }

    @Override
    public void write(long lba, ScatterList src, int length, boolean fua) throws IOException {
        delegate.write(lba, src, length, fua);
    }

    @Override
    public boolean tryReadNonBlocking(long lba, int blocks, ByteBuf dst) {
        return delegate.tryReadNonBlocking(lba, blocks, dst);
    }

    @Override
    public void flush(long lba, long blocks) throws IOException {
        delegate.flush(lba, blocks);
    }

    @Override
    public boolean supportsUnmap() {
        return delegate.supportsUnmap();
    }

    @Override
    public void unmap(long lba, long blocks) throws IOException {
        delegate.unmap(lba, blocks);
    }

    @Override
    public boolean supportsCryptoErase() {
        return delegate.supportsCryptoErase();
    }

    @Override
    public void cryptoErase() throws IOException {
        delegate.cryptoErase();
    }

    @Override
    public int unmapGranularityBlocks() {
        return delegate.unmapGranularityBlocks();
    }

    @Override
    public ProvisioningRun provisioningRun(long lba, long maxBlocks) throws IOException {
        return delegate.provisioningRun(lba, maxBlocks);
    }

    @Override
    public boolean directIo() {
        return delegate.directIo();
    }

    @Override
    public Path backingFile() {
        return delegate.backingFile();
    }

    @Override
    public ReplicatedState replicatedState() {
        return delegate.replicatedState();
    }

    /** Closes the delegate; a decorator that only borrows it overrides this. */
    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
