package org.jtarget.ha.witness;

import org.jtarget.ha.DurableFiles;
import org.jtarget.ha.Generation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the witness knows of each pair, and its rules: the pair's current generation (durable, in
 * {@code witness.state}), which node holds the lease to serve it and until when (in memory).
 *
 * <ul>
 * <li><b>LEASE</b> (the serving node, every heartbeat interval): granted for the pair's current
 *     generation when nobody else holds a lease on it; refused for an older generation (the pair
 *     went on without the asker).</li>
 * <li><b>PROMOTE</b> (a node that will serve without its peer, a lone primary or a secondary whose
 *     primary is gone): granted only for a node whose data is the pair's current generation, when
 *     no other node holds a lease; the pair then moves to the next generation, begun by that
 *     node, which holds the lease. Whoever asks first wins; the other is refused and must not
 *     serve. This is the majority of {primary, secondary, witness} the pair needs.</li>
 * <li><b>RELEASE</b>: a node that stops cleanly gives its lease up, so that the peer need not wait
 *     for it to end.</li>
 * </ul>
 *
 * The generation and the last lease holder are durable; when the witness restarts it does not
 * know whether that lease still holds, so for each pair it grants nothing to another node until
 * the longest lease it recorded for the pair has passed.
 */
final class WitnessBook {

    private static final Logger LOG = LoggerFactory.getLogger(WitnessBook.class);

    /** One pair: its generation, the lease holder (null: unknown or none) and when the lease ends. */
    private static final class Pair {
        Generation generation;
        String holder;
        long leaseEnd;
        long leaseMillis;
    }

    private final Path file;
    private final Map<String, Pair> pairs = new HashMap<>();

    /** Reads {@code file} (none: no pair known); every known pair starts in its grace period from {@code now}. */
    WitnessBook(Path file, long now) throws IOException {
        this.file = file;
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] f = line.trim().split(" ");
                if (f.length != 6 || !f[0].equals("pair")) {
                    throw new IOException(file + ": expected 'pair NAME COUNTER NODE LEASE_MS HOLDER', got '" + line + "'");
                }
                Pair p = new Pair();
                p.generation = new Generation(Long.parseLong(f[2]), f[3].equals("-") ? "" : f[3]);
                p.leaseMillis = Long.parseLong(f[4]);
                p.holder = f[5].equals("-") ? null : f[5];
                p.leaseEnd = now + p.leaseMillis * 1_000_000; // a lease from before the restart may still hold
                pairs.put(f[1], p);
            }
        }
    }

    /** The answer to {@code r}, received at {@code now} (System.nanoTime). */
    synchronized WitnessAnswer handle(WitnessRequest r, long now) throws IOException {
        Pair p = pairs.get(r.pair());
        return switch (r.kind()) {
            case LEASE -> lease(r, p, now);
            case PROMOTE -> promote(r, p, now);
            case RELEASE -> release(r, p, now);
        };
    }

    private WitnessAnswer lease(WitnessRequest r, Pair p, long now) throws IOException {
        if (p == null || r.generation().counter() > p.generation.counter()) {
            return grant(r, p, r.generation(), now); // a pair new to this witness, or one it lost track of
        }
        if (!r.generation().equals(p.generation)) {
            return new WitnessAnswer.Refused("the pair is at generation " + p.generation + ", not " + r.generation());
        }
        String holder = otherHolder(r, p, now);
        return holder != null ? new WitnessAnswer.Refused(holder) : grant(r, p, p.generation, now);
    }

    private WitnessAnswer promote(WitnessRequest r, Pair p, long now) throws IOException {
        Generation next = r.generation().next(r.node());
        if (p != null && p.generation.equals(next) && r.node().equals(p.holder)) {
            // this node's own promotion, whose answer it never got (its read timed out, its client
            // asked again): it still has the data it was promoted from, and nobody else can have
            // served a generation that only it may begin, so it is granted the same again
            LOG.info("witness: {} of pair {} promoted to generation {} again (it had not heard the answer)",
                    r.node(), r.pair(), next);
            return grant(r, p, next, now);
        }
        if (p != null && !r.generation().equals(p.generation)) {
            return new WitnessAnswer.Refused("the pair is at generation " + p.generation + "; " + r.node()
                    + " has " + r.generation());
        }
        String holder = p == null ? null : otherHolder(r, p, now);
        if (holder != null) {
            return new WitnessAnswer.Refused(holder);
        }
        LOG.info("witness: {} of pair {} promoted to generation {}", r.node(), r.pair(), next);
        return grant(r, p, next, now);
    }

    private WitnessAnswer release(WitnessRequest r, Pair p, long now) {
        if (p == null || !r.node().equals(p.holder)) {
            return new WitnessAnswer.Refused(r.node() + " holds no lease of pair " + r.pair());
        }
        p.leaseEnd = now;
        LOG.info("witness: {} of pair {} released its lease", r.node(), r.pair());
        return new WitnessAnswer.Granted(p.generation);
    }

    /** Why another node may still serve (its lease, or one from before a restart), or null. */
    private static String otherHolder(WitnessRequest r, Pair p, long now) {
        if (now - p.leaseEnd >= 0 || r.node().equals(p.holder)) {
            return null;
        }
        long ms = (p.leaseEnd - now) / 1_000_000 + 1;
        return p.holder == null ? "the witness restarted; a lease from before may hold " + ms + " ms more"
                : p.holder + " holds the lease for " + ms + " ms more";
    }

    private WitnessAnswer grant(WitnessRequest r, Pair p, Generation g, long now) throws IOException {
        Pair q = p != null ? p : new Pair();
        boolean changed = p == null || !g.equals(q.generation) || r.leaseMillis() > q.leaseMillis
                || !r.node().equals(q.holder);
        q.generation = g;
        q.holder = r.node();
        q.leaseEnd = now + r.leaseMillis() * 1_000_000;
        q.leaseMillis = Math.max(q.leaseMillis, r.leaseMillis());
        pairs.put(r.pair(), q);
        if (changed) {
            save();
        }
        return new WitnessAnswer.Granted(g);
    }

    /** Replaces the file atomically and durably (a grant is answered only after it). */
    private void save() throws IOException {
        List<String> lines = new ArrayList<>();
        pairs.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> lines.add("pair " + e.getKey()
                + " " + e.getValue().generation.counter() + " "
                + (e.getValue().generation.node().isEmpty() ? "-" : e.getValue().generation.node()) + " "
                + e.getValue().leaseMillis + " " + (e.getValue().holder == null ? "-" : e.getValue().holder)));
        DurableFiles.replace(file, String.join("\n", lines) + "\n");
    }
}
