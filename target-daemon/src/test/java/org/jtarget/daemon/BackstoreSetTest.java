package org.jtarget.daemon;

import org.jtarget.backstore.memory.MemoryBudget;

import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.DaemonSettings;
import org.jtarget.config.JtargetConfig;
import org.jtarget.backstore.partition.PartitionBackstore;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackstoreSetTest {

    private final List<String> events = new ArrayList<>();

    /** A store that logs its open and close into {@link #events}. */
    private final class LoggedStore implements Backstore {
        private final String name;
        private final BackstoreInfo info;

        LoggedStore(BackstoreConfig c) {
            name = c.name();
            info = new BackstoreInfo(512, c.sizeBytes() / 512, true, false, false, 0, 0, "t:" + name);
            events.add("open " + name);
        }

        @Override public BackstoreInfo info() { return info; }
        @Override public String name() { return name; }
        @Override public boolean isNonBlocking() { return true; }
        @Override public void read(long lba, int blocks, ByteBuf dst) { }
        @Override public void write(long lba, ByteBuf src, boolean fua) { }
        @Override public void flush(long lba, long blocks) { events.add("flush " + name); }
        @Override public void close() { events.add("close " + name); }
    }

    private static final BackstoreConfig FILE0 = new BackstoreConfig("file0", BackstoreConfig.Type.FILE,
            Path.of("/tmp/x.img"), 1 << 20, true, 512, false, null);
    private static final BackstoreConfig RAM0 = new BackstoreConfig("ram0", BackstoreConfig.Type.MEMORY, null,
            1 << 20, false, 512, true, null);

    private static JtargetConfig config(BackstoreConfig... stores) {
        return new JtargetConfig(Path.of("jtarget.yaml"), DaemonSettings.defaults(Path.of("/tmp")), List.of(),
                List.of(stores), List.of());
    }

    private Backstore open(BackstoreConfig c, Backstore parent) throws ConfigException {
        if (c.isPartition()) {
            assertThat(parent).as("parent of " + c.name()).isNotNull();
            assertThat(parent.name()).isEqualTo(c.of());
            events.add("open " + c.name());
            return new PartitionBackstore(c.name(), parent, c.offsetBytes() / 512, c.sizeBytes() / 512);
        }
        return new LoggedStore(c);
    }

    @Test
    void parentsOpenBeforeTheirPartitionsAndCloseAfterThem() {
        BackstoreConfig a = BackstoreConfig.partition("part-a", FILE0, 0, 4096);
        BackstoreConfig b = BackstoreConfig.partition("part-b", FILE0, 4096, 4096);
        BackstoreSet set;
        try {
            set = BackstoreSet.open(config(a, FILE0, b, RAM0), this::open, new MemoryBudget(MemoryBudget.UNLIMITED));
        } catch (ConfigException e) {
            throw new AssertionError(e);
        }
        assertThat(set.all().keySet()).containsExactly("part-a", "file0", "part-b", "ram0");
        assertThat(((PartitionBackstore) set.get("part-a")).parent()).isSameAs(set.get("file0"))
                .isSameAs(((PartitionBackstore) set.get("part-b")).parent());
        set.close();
        assertThat(events).containsExactly("open file0", "open ram0", "open part-a", "open part-b",
                "flush file0", "flush file0", "close ram0", "close file0");
    }

    @Test
    void aFailingPartitionClosesWhatWasOpenedAndNamesTheFile() {
        BackstoreConfig a = BackstoreConfig.partition("part-a", FILE0, 0, 4096);
        assertThatThrownBy(() -> BackstoreSet.open(config(FILE0, a), (c, parent) -> {
            if (c.isPartition()) {
                throw new ConfigException(null, "backstores[part-a].offset", "bad");
            }
            return new LoggedStore(c);
        }, new MemoryBudget(MemoryBudget.UNLIMITED))).isInstanceOf(ConfigException.class).hasMessage("jtarget.yaml: backstores[part-a].offset: bad");
        assertThat(events).containsExactly("open file0", "close file0");
    }
}
