package org.jtarget.fabric.iscsi.session;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CmdSnWindowTest {

    @Test
    void windowWrapsAroundSerialNumberSpace() {
        CmdSnWindow<String> w = new CmdSnWindow<>(0xffffffff, 4);
        assertThat(w.offer(0xffffffff)).isEqualTo(CmdSnWindow.Verdict.DELIVER);
        assertThat(w.offer(1)).isEqualTo(CmdSnWindow.Verdict.QUEUED);
        w.enqueue(1, "b");
        assertThat(w.offer(0)).isEqualTo(CmdSnWindow.Verdict.DELIVER);
        assertThat(w.pollNext()).isEqualTo("b");
        assertThat(w.expCmdSn()).isEqualTo(2);
        assertThat(w.maxCmdSn()).isEqualTo(2 - 1 + 4 - 3);
        assertThat(w.offer(5)).isEqualTo(CmdSnWindow.Verdict.IGNORE);
    }

    @Test
    void maxCmdSnNeverDecreases() {
        CmdSnWindow<String> w = new CmdSnWindow<>(1, 2);
        int max = w.maxCmdSn();
        w.offer(1);
        assertThat(w.maxCmdSn()).isEqualTo(max);
        w.completed();
        assertThat(w.maxCmdSn()).isEqualTo(max + 1);
    }

    @Test
    void consumedCmdSnIsSkipped() {
        CmdSnWindow<String> w = new CmdSnWindow<>(1, 8);
        w.consume(2);
        w.enqueue(3, "c");
        assertThat(w.offer(1)).isEqualTo(CmdSnWindow.Verdict.DELIVER);
        assertThat(w.pollNext()).isEqualTo("c");
        assertThat(w.offer(2)).isEqualTo(CmdSnWindow.Verdict.IGNORE);
    }

    @Test
    void heldWindowKeepsMaxCmdSnUntilTheLastWaiterIsAdmitted() {
        CmdSnWindow<String> w = new CmdSnWindow<>(1, 4);
        w.offer(1);
        w.offer(2);
        assertThat(w.maxCmdSn()).isEqualTo(4);
        w.hold();
        w.offer(3);
        w.hold();
        w.completed();
        w.completed();
        assertThat(w.maxCmdSn()).as("completions free no CmdSN while held").isEqualTo(4);
        assertThat(w.inWindow(5)).isFalse();
        assertThat(w.offer(4)).isEqualTo(CmdSnWindow.Verdict.DELIVER);
        w.unhold();
        assertThat(w.maxCmdSn()).isEqualTo(4);
        w.unhold();
        assertThat(w.held()).isZero();
        assertThat(w.maxCmdSn()).as("reopened: two slots came back").isEqualTo(6);
        w.unhold();
        assertThat(w.held()).as("never negative").isZero();
    }
}
