package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StateMessageTest {

    @Test
    void aMessageReadsBackAsWrittenAndItsLengthIsItsBytes() throws Exception {
        StateMessage m = new StateMessage("iqn.t/lun0/pr", new byte[] {1, 2, 3});
        ByteBuf b = m.encode();
        try {
            assertThat(b.readableBytes()).isEqualTo(m.length()).isEqualTo(1 + 2 + 13 + 4 + 3);
            StateMessage back = StateMessage.decode(b);
            assertThat(back.key()).isEqualTo("iqn.t/lun0/pr");
            assertThat(back.record()).containsExactly(1, 2, 3);
            assertThat(b.readerIndex()).isZero();
        } finally {
            b.release();
        }
    }

    @Test
    void aMessageThisNodeCannotReadSaysWhy() {
        assertThatThrownBy(() -> StateMessage.decode(Unpooled.wrappedBuffer(new byte[] {1, 0})))
                .hasMessageContaining("shorter than its header");
        assertThatThrownBy(() -> StateMessage.decode(Unpooled.wrappedBuffer(new byte[] {2, 0, 0, 0, 0, 0, 0})))
                .hasMessageContaining("version 2");
        assertThatThrownBy(() -> StateMessage.decode(Unpooled.wrappedBuffer(new byte[] {1, 0, 9, 'k'})))
                .hasMessageContaining("cut short in its key");
        assertThatThrownBy(() -> StateMessage.decode(Unpooled.wrappedBuffer(new byte[] {1, 0, 1, 'k', 0, 0, 0, 5, 1})))
                .hasMessageContaining("record of 5 bytes, 1 bytes follow");
    }
}
