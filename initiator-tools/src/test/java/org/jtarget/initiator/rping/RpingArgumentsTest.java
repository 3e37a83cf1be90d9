package org.jtarget.initiator.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Set;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.rdma.iwarp.ReadyToReceive;
import org.junit.jupiter.api.Test;

class RpingArgumentsTest {

    private static RpingArguments parse(String... args) throws CliFailure {
        String[] all = new String[args.length + 1];
        all[0] = "rping";
        System.arraycopy(args, 0, all, 1, args.length);
        return RpingArguments.parse(all);
    }

    @Test
    void hasRpingsDefaults() throws CliFailure {
        assertThat(parse("-s"))
                .isEqualTo(new RpingArguments(true, "0.0.0.0", 7174, 0, 64, false, false, false, false, Set.of()));
        assertThat(parse("-c", "-a", "10.0.2.2"))
                .isEqualTo(new RpingArguments(false, "10.0.2.2", 7174, 0, 64, false, false, false, false, Set.of()));
    }

    @Test
    void readsOptionsAsGetoptDoes() throws CliFailure {
        assertThat(parse("-c", "-a", "h", "-p", "9999", "-C", "100", "-v", "-V", "-S", "1000"))
                .isEqualTo(new RpingArguments(false, "h", 9999, 100, 1000, true, true, false, false, Set.of()));
        assertThat(parse("-cvV", "-ah", "-C100", "-p9999"))
                .isEqualTo(new RpingArguments(false, "h", 9999, 100, 64, true, true, false, false, Set.of()));
        assertThat(parse("-sP", "-p", "0").persistent()).isTrue();
    }

    @Test
    void crcIsOffUnlessAskedFor() throws CliFailure {
        assertThat(parse("-s").crc()).isFalse();
        assertThat(parse("-s", "--crc").crc()).isTrue();
        assertThat(parse("-c", "--crc", "-a", "h", "-C", "3").crc()).isTrue();
    }

    @Test
    void peerToPeerOffersTheNamedRtrsOrAllThree() throws CliFailure {
        assertThat(parse("-c", "-a", "h").peerToPeer()).isEmpty();
        assertThat(parse("-c", "-a", "h", "--p2p").peerToPeer())
                .containsExactlyInAnyOrder(ReadyToReceive.WRITE, ReadyToReceive.READ, ReadyToReceive.SEND);
        assertThat(parse("-c", "-a", "h", "--p2p=read").peerToPeer()).containsExactly(ReadyToReceive.READ);
        assertThat(parse("-c", "-a", "h", "--p2p=WRITE,send").peerToPeer())
                .isEqualTo(EnumSet.of(ReadyToReceive.WRITE, ReadyToReceive.SEND));
        assertThatThrownBy(() -> parse("-c", "-a", "h", "--p2p=atomic")).hasMessageContaining("atomic");
        assertThatThrownBy(() -> parse("-c", "-a", "h", "--p2p=")).hasMessageContaining("--p2p");
        assertThatThrownBy(() -> parse("-s", "--p2p")).hasMessageContaining("client");
    }

    @Test
    void refusesWhatRpingRefuses() {
        assertThatThrownBy(() -> parse("-v")).isInstanceOf(CliFailure.class).hasMessageContaining("-s");
        assertThatThrownBy(() -> parse("-c")).hasMessageContaining("-a");
        assertThatThrownBy(() -> parse("-s", "-c")).hasMessageContaining("exclude");
        assertThatThrownBy(() -> parse("-s", "-S", "25")).hasMessageContaining("-S");
        assertThatThrownBy(() -> parse("-s", "-S", "65536")).hasMessageContaining("-S");
        assertThatThrownBy(() -> parse("-s", "-x")).hasMessageContaining("-x");
        assertThatThrownBy(() -> parse("-s", "-p")).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> parse("-c", "-a", "h", "-P")).hasMessageContaining("-P");
        assertThatThrownBy(() -> parse("-s", "extra")).hasMessageContaining("extra");
    }
}
