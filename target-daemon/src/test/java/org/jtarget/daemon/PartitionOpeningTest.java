package org.jtarget.daemon;

import org.jtarget.backstore.partition.PartitionBackstore;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A partition opened over its opened parent: the extent checked again against the parent's real geometry. */
class PartitionOpeningTest {

    private Backstore parent;
    private BackstoreConfig parentConfig;

    @BeforeEach
    void open() throws ConfigException {
        parentConfig = new BackstoreConfig("ram0", BackstoreConfig.Type.MEMORY, null, 8L << 20, false, 4096, true, null);
        parent = BackstoreOpeners.open(parentConfig);
    }

    @AfterEach
    void close() throws Exception {
        parent.close();
    }

    @Test
    void opensInParentBlocks() throws ConfigException {
        Backstore p = BackstoreOpeners.open(BackstoreConfig.partition("p", parentConfig, 1L << 20, 2L << 20), parent);
        assertThat(p).isInstanceOf(PartitionBackstore.class);
        assertThat(((PartitionBackstore) p).offsetBlocks()).isEqualTo(256);
        assertThat(p.info().blockCount()).isEqualTo(512);
        assertThat(p.info().blockSize()).isEqualTo(4096);
    }

    /** A block device parent's block size is only known when it opens: 512-aligned may not be enough. */
    @Test
    void offsetMisalignedWithTheOpenedParentNamesTheKey() {
        BackstoreConfig c = BackstoreConfig.partition("p", parentConfig, 512, 4096);
        assertThatThrownBy(() -> BackstoreOpeners.openPartition(c, parent)).isInstanceOf(ConfigException.class)
                .hasMessage("backstores[p].offset: must be a multiple of the block size 4096 of 'ram0', got 512");
    }

    @Test
    void extentPastTheOpenedParentNamesTheKey() {
        BackstoreConfig c = BackstoreConfig.partition("p", parentConfig, 4L << 20, 8L << 20);
        assertThatThrownBy(() -> BackstoreOpeners.openPartition(c, parent)).isInstanceOf(ConfigException.class)
                .hasMessage("backstores[p].size: extent [4MiB, 12MiB) ends past the end of 'ram0' (8MiB)");
    }

    @Test
    void aPartitionWithoutItsParentIsABug() {
        BackstoreConfig c = BackstoreConfig.partition("p", parentConfig, 0, 4096);
        assertThatThrownBy(() -> BackstoreOpeners.open(c)).isInstanceOf(IllegalArgumentException.class);
    }
}
