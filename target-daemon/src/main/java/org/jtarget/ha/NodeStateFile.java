package org.jtarget.ha;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an HA node must remember across restarts, as a small text file replaced atomically
 * (temporary file, fsync, rename, fsync of the directory): the generation of its data, the
 * generation from which its dirty-region logs count changes (the last one the peer had whole), and
 * which stores hold complete data of that generation. A store not listed, or listed as
 * incomplete, is copied whole from the peer before this node may serve it.
 *
 * <pre>
 * generation 3 alpha
 * tracked-since 2 alpha
 * store file0 complete
 * store disk1 incomplete
 * </pre>
 */
public final class NodeStateFile {

    /** The state; {@code complete} maps store names to whether their data is whole. */
    public record State(Generation generation, Generation trackedSince, Map<String, Boolean> complete) {

        public State {
            complete = Map.copyOf(complete);
        }

        /** No file yet: a new node, whose stores' contents are unknown to the pair. */
        public static State fresh() {
            return new State(Generation.INITIAL, Generation.INITIAL, Map.of());
        }

        public boolean isComplete(String store) {
            return complete.getOrDefault(store, false);
        }

        public State withComplete(String store, boolean whole) {
            Map<String, Boolean> m = new LinkedHashMap<>(complete);
            m.put(store, whole);
            return new State(generation, trackedSince, m);
        }

        public State withGeneration(Generation g, Generation since) {
            return new State(g, since, complete);
        }
    }

    private final Path path;

    public NodeStateFile(Path path) {
        this.path = path;
    }

    public Path path() {
        return path;
    }

    /** The saved state, or {@link State#fresh()} when there is no file. */
    public State load() throws IOException {
        if (!Files.exists(path)) {
            return State.fresh();
        }
        Generation generation = null;
        Generation since = null;
        Map<String, Boolean> complete = new LinkedHashMap<>();
        int lineNumber = 0;
        for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
            lineNumber++;
            String[] f = line.trim().split(" ");
            if (f.length == 1 && f[0].isEmpty()) {
                continue;
            }
            switch (f[0]) {
                case "generation" -> generation = generation(f, lineNumber);
                case "tracked-since" -> since = generation(f, lineNumber);
                case "store" -> {
                    if (f.length != 3 || !f[2].equals("complete") && !f[2].equals("incomplete")) {
                        throw corrupt(lineNumber, "store NAME complete|incomplete");
                    }
                    complete.put(f[1], f[2].equals("complete"));
                }
                default -> throw corrupt(lineNumber, "unknown entry '" + f[0] + "'");
            }
        }
        if (generation == null || since == null) {
            throw new IOException(path + ": no generation or tracked-since line");
        }
        return new State(generation, since, complete);
    }

    private Generation generation(String[] f, int lineNumber) throws IOException {
        try {
            if (f.length == 2 || f.length == 3) {
                return new Generation(Long.parseLong(f[1]), f.length == 3 ? f[2] : "");
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw corrupt(lineNumber, f[0] + " COUNTER [NODE]");
    }

    private IOException corrupt(int line, String expected) {
        return new IOException(path + " line " + line + ": expected " + expected);
    }

    /** Replaces the file with {@code s}, atomically and durably. */
    public void save(State s) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("generation " + s.generation().counter() + suffix(s.generation()));
        lines.add("tracked-since " + s.trackedSince().counter() + suffix(s.trackedSince()));
        s.complete().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> lines.add("store " + e.getKey() + (e.getValue() ? " complete" : " incomplete")));
        DurableFiles.replace(path, String.join("\n", lines) + "\n");
    }

    private static String suffix(Generation g) {
        return g.node().isEmpty() ? "" : " " + g.node();
    }
}
