package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkTest {

    @Test
    void splitsIntoAtMostMaxBytesPerCommand() {
        List<Chunk> c = Chunk.split(1000, 3000, 512, Chunk.MAX_CHUNK_BYTES);
        assertThat(c).containsExactly(new Chunk(1000, 2048, 0), new Chunk(3048, 952, 2048L * 512));
        assertThat(c.get(1).bytes(512)).isEqualTo(952 * 512);
    }

    @Test
    void exactMultipleAndSmallTransfers() {
        assertThat(Chunk.split(0, 4096, 512, 1 << 20)).hasSize(2);
        assertThat(Chunk.split(7, 1, 4096, 1 << 20)).containsExactly(new Chunk(7, 1, 0));
        assertThat(Chunk.split(0, 0, 512, 1 << 20)).isEmpty();
    }

    @Test
    void aBlockLargerThanTheLimitStillMakesProgress() {
        assertThat(Chunk.split(0, 3, 4096, 1000)).extracting(Chunk::blocks).containsExactly(1, 1, 1);
    }
}
