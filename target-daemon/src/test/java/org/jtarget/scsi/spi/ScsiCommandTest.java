package org.jtarget.scsi.spi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class ScsiCommandTest {

    @Test
    void cdbCopiesEveryLengthFromAnyOffset() {
        ByteBuf src = PooledByteBufAllocator.DEFAULT.directBuffer(400);
        try {
            for (int i = 0; i < 400; i++) {
                src.writeByte(i * 37 + 5);
            }
            ScsiCommand cmd = new ScsiCommand();
            for (int length : new int[] {1, 6, 7, 8, 10, 12, 16, 17, 32, 33, ScsiCommand.MAX_CDB_LENGTH}) {
                for (int offset : new int[] {0, 3, 32, 100}) {
                    byte[] expected = new byte[length];
                    src.getBytes(offset, expected);
                    cmd.cdb(src, offset, length);
                    assertThat(cmd.cdbLength()).isEqualTo(length);
                    assertThat(Arrays.copyOf(cmd.cdb(), length)).as("length %d offset %d", length, offset)
                            .isEqualTo(expected);
                }
            }
        } finally {
            src.release();
        }
    }
}
