package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class RemoteBufferTableTest {

    private static IserHeader header(int stag, long base) {
        var buf = Unpooled.buffer(IserHeader.LENGTH).writerIndex(IserHeader.LENGTH);
        IserHeader.encodeControl(buf, 0, true, stag + 1, base + 1, true, stag, base);
        IserHeader h = new IserHeader();
        h.decode(buf, 0, IserHeader.LENGTH);
        return h;
    }

    @Test
    void recordsFindsReplacesAndForgetsByTag() {
        RemoteBufferTable t = new RemoteBufferTable(4);
        assertThat(t.put(7, header(70, 700))).isTrue();
        assertThat(t.put(7, header(71, 710))).isTrue(); // the tag reused: replaced, not added
        assertThat(t.size()).isOne();
        int slot = t.find(7);
        assertThat(t.readStag(slot)).isEqualTo(71);
        assertThat(t.readBase(slot)).isEqualTo(710);
        assertThat(t.writeStag(slot)).isEqualTo(72);
        assertThat(t.writeBase(slot)).isEqualTo(711);
        t.remove(7);
        assertThat(t.find(7)).isEqualTo(-1);
        assertThat(t.size()).isZero();
    }

    @Test
    void refusesMoreCommandsThanTheConnectionMayHave() {
        RemoteBufferTable t = new RemoteBufferTable(4);
        for (int i = 0; i < 4; i++) {
            assertThat(t.put(i, header(i, i))).isTrue();
        }
        assertThat(t.put(99, header(1, 1))).isFalse();
    }

    /** Random puts and removes against a map: removal's back-shift never loses an entry. */
    @Test
    void agreesWithAMapUnderChurn() {
        RemoteBufferTable t = new RemoteBufferTable(64);
        Map<Integer, Integer> model = new HashMap<>();
        Random r = new Random(42);
        for (int step = 0; step < 200_000; step++) {
            int itt = r.nextInt(200) | (r.nextInt(4) << 24); // Linux-like: index | age
            if (r.nextBoolean() && (model.size() < 64 || model.containsKey(itt))) {
                int stag = r.nextInt();
                assertThat(t.put(itt, header(stag, itt))).isTrue();
                model.put(itt, stag);
            } else {
                t.remove(itt);
                model.remove(itt);
            }
        }
        assertThat(t.size()).isEqualTo(model.size());
        for (Map.Entry<Integer, Integer> e : model.entrySet()) {
            assertThat(t.readStag(t.find(e.getKey()))).isEqualTo(e.getValue());
        }
    }
}
