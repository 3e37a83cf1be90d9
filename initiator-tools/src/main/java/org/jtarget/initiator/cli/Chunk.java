package org.jtarget.initiator.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * One command's share of a large transfer: {@code blocks} blocks from {@code lba}, the bytes at
 * {@code offset} of the whole transfer.
 */
public record Chunk(long lba, int blocks, long offset) {

    /** The largest transfer the CLI puts in one command. */
    public static final int MAX_CHUNK_BYTES = 1 << 20;

    /**
     * Splits {@code blocks} blocks from {@code lba} into commands of at most {@code maxBytes}
     * (and at least one block each, even when a block is larger than {@code maxBytes}).
     */
    public static List<Chunk> split(long lba, long blocks, int blockSize, int maxBytes) {
        if (blockSize <= 0 || maxBytes <= 0 || blocks < 0 || lba < 0) {
            throw new IllegalArgumentException("bad split: lba=" + lba + " blocks=" + blocks + " blockSize="
                    + blockSize + " maxBytes=" + maxBytes);
        }
        int perChunk = Math.max(1, maxBytes / blockSize);
        List<Chunk> out = new ArrayList<>();
        for (long done = 0; done < blocks; done += perChunk) {
            int n = (int) Math.min(perChunk, blocks - done);
            out.add(new Chunk(lba + done, n, done * blockSize));
        }
        return out;
    }

    /** The chunk's length in bytes. */
    public int bytes(int blockSize) {
        return blocks * blockSize;
    }
}
