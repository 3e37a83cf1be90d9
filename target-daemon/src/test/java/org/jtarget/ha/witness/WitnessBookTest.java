package org.jtarget.ha.witness;

import org.jtarget.ha.Generation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The witness's rules: one lease holder per pair, promotion only from the current generation, a restart's grace. */
class WitnessBookTest {

    private static final long MS = 1_000_000;
    private static final Generation G0 = Generation.INITIAL;

    @TempDir
    Path dir;

    private static WitnessRequest lease(String node, Generation g) {
        return new WitnessRequest(WitnessRequest.Kind.LEASE, "a+b", node, g, 1000);
    }

    private static WitnessRequest promote(String node, Generation g) {
        return new WitnessRequest(WitnessRequest.Kind.PROMOTE, "a+b", node, g, 1000);
    }

    @Test
    void aLeaseHolderKeepsThePairAndTheOtherNodeWaitsForItToEnd() throws Exception {
        WitnessBook book = new WitnessBook(dir.resolve("w.state"), 0);
        assertThat(book.handle(lease("a", G0), 0)).isEqualTo(new WitnessAnswer.Granted(G0));
        assertThat(book.handle(promote("b", G0), 500 * MS)).isInstanceOf(WitnessAnswer.Refused.class);
        assertThat(book.handle(lease("a", G0), 900 * MS)).isEqualTo(new WitnessAnswer.Granted(G0));
        assertThat(book.handle(promote("b", G0), 1800 * MS)).isInstanceOf(WitnessAnswer.Refused.class);
        WitnessAnswer b = book.handle(promote("b", G0), 1901 * MS);
        assertThat(b).isEqualTo(new WitnessAnswer.Granted(new Generation(1, "b")));
        assertThat(((WitnessAnswer.Refused) book.handle(lease("a", G0), 2000 * MS)).reason())
                .contains("generation 1@b");
        assertThat(book.handle(promote("a", G0), 5000 * MS)).as("a's data is older").isInstanceOf(WitnessAnswer.Refused.class);
    }

    /**
     * A node whose PROMOTE was granted but whose answer it never got (the witness answers only after
     * its state file is forced; the node waits one heartbeat interval) asks again from the same
     * data: it used to be refused (the pair was at the generation it did not know it had), and
     * then nobody could ever serve the pair alone again.
     */
    @Test
    void aPromotionWhoseAnswerWasLostIsGrantedAgainToThatNodeOnly() throws Exception {
        WitnessBook book = new WitnessBook(dir.resolve("w.state"), 0);
        Generation oneAtB = new Generation(1, "b");
        book.handle(lease("a", G0), 0);
        assertThat(book.handle(promote("b", G0), 1001 * MS)).isEqualTo(new WitnessAnswer.Granted(oneAtB));
        assertThat(book.handle(promote("b", G0), 1100 * MS)).as("b asks again at once")
                .isEqualTo(new WitnessAnswer.Granted(oneAtB));
        assertThat(book.handle(promote("b", G0), 5000 * MS)).as("b asks again after the lease it never knew of ended")
                .isEqualTo(new WitnessAnswer.Granted(oneAtB));
        assertThat(book.handle(promote("a", G0), 9000 * MS)).as("a, whose data is older")
                .isInstanceOf(WitnessAnswer.Refused.class);
        assertThat(book.handle(lease("a", G0), 9000 * MS)).isInstanceOf(WitnessAnswer.Refused.class);
        assertThat(book.handle(promote("b", oneAtB), 9000 * MS)).as("b, serving 1@b, goes on from there as usual")
                .isEqualTo(new WitnessAnswer.Granted(new Generation(2, "b")));
        assertThat(book.handle(promote("b", G0), 9100 * MS)).as("no longer b's next generation")
                .isInstanceOf(WitnessAnswer.Refused.class);
    }

    @Test
    void aReleasedLeaseLetsThePeerGoOnAtOnce() throws Exception {
        WitnessBook book = new WitnessBook(dir.resolve("w.state"), 0);
        book.handle(lease("a", G0), 0);
        assertThat(book.handle(new WitnessRequest(WitnessRequest.Kind.RELEASE, "a+b", "a", null, 0), 10 * MS))
                .isInstanceOf(WitnessAnswer.Granted.class);
        assertThat(book.handle(promote("b", G0), 20 * MS)).isEqualTo(new WitnessAnswer.Granted(new Generation(1, "b")));
    }

    @Test
    void theGenerationSurvivesARestartAndNothingNewIsGrantedUntilOldLeasesEnded() throws Exception {
        Path file = dir.resolve("w.state");
        WitnessBook book = new WitnessBook(file, 0);
        book.handle(lease("a", G0), 0);
        book.handle(promote("a", G0), 10 * MS); // a goes on alone: 1@a
        WitnessBook restarted = new WitnessBook(file, 50_000 * MS);
        assertThat(restarted.handle(promote("b", G0), 50_001 * MS)).isInstanceOf(WitnessAnswer.Refused.class);
        assertThat(restarted.handle(promote("b", new Generation(1, "a")), 50_500 * MS))
                .as("within the grace of a lease from before the restart").isInstanceOf(WitnessAnswer.Refused.class);
        assertThat(restarted.handle(lease("a", new Generation(1, "a")), 50_600 * MS))
                .isEqualTo(new WitnessAnswer.Granted(new Generation(1, "a")));
    }

    @Test
    void requestLinesAreParsedStrictly() {
        WitnessRequest r = promote("b", new Generation(4, "a"));
        assertThat(WitnessRequest.decode(r.encode())).isEqualTo(r);
        assertThat(WitnessRequest.decode("LEASE a+b a 0 - 1000")).isEqualTo(lease("a", G0));
        assertThat(WitnessRequest.decode("LEASE a+b a -1 - 1000")).isNull();
        assertThat(WitnessRequest.decode("LEASE a+b a 0 - 0")).isNull();
        assertThat(WitnessRequest.decode("GRAB a+b a 0 - 10")).isNull();
        assertThat(WitnessRequest.decode("LEASE a b")).isNull();
        assertThat(WitnessRequest.decode("LEASE a+b a/x 0 - 10")).isNull();
        assertThat(WitnessAnswer.decode("GRANTED 3 b")).isEqualTo(new WitnessAnswer.Granted(new Generation(3, "b")));
        assertThat(WitnessAnswer.decode("nonsense")).isInstanceOf(WitnessAnswer.Refused.class);
    }
}
