package org.jtarget.ha;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeStateFileTest {

    @TempDir
    Path dir;

    @Test
    void aMissingFileIsAFreshNodeAndASavedStateComesBack() throws IOException {
        NodeStateFile f = new NodeStateFile(dir.resolve("ha/node.state"));
        assertThat(f.load()).isEqualTo(NodeStateFile.State.fresh());
        NodeStateFile.State s = NodeStateFile.State.fresh().withGeneration(new Generation(3, "alpha"),
                new Generation(2, "beta")).withComplete("file0", true).withComplete("ram0", false);
        f.save(s);
        assertThat(f.load()).isEqualTo(s);
        assertThat(f.load().isComplete("file0")).isTrue();
        assertThat(f.load().isComplete("ram0")).isFalse();
        assertThat(f.load().isComplete("other")).isFalse();
    }

    @Test
    void aDamagedFileIsRefusedWithItsLine() throws IOException {
        Path p = dir.resolve("node.state");
        Files.writeString(p, "generation 3 alpha\ntracked-since x\n");
        assertThatThrownBy(() -> new NodeStateFile(p).load()).hasMessageContaining("line 2");
    }
}
