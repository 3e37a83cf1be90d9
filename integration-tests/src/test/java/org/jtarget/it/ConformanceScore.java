package org.jtarget.it;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The score of one run of libiscsi's conformance suite ({@code iscsi-test-cu}, CUnit's default
 * verbose mode) per test: PASS, SKIP (the test printed {@code [SKIPPED]}: a feature the LU does not
 * have or advertise) or FAIL. The rules are those of the developer scorer behind
 * {@code integration-tests/conformance/run-matrix}:
 * <ul>
 * <li>{@code Suite: NAME} opens a suite and {@code   Test: NAME ...} a test, named {@code Suite.Test};</li>
 * <li>a test ends at CUnit's verdict, {@code passed} or {@code FAILED};</li>
 * <li>a passed test whose output before the verdict holds {@code [SKIPPED]} is a SKIP;</li>
 * <li>a test that runs in several families counts once, at its worst;</li>
 * <li>a test without a verdict (the suite died inside it) is a FAIL.</li>
 * </ul>
 * Unlike that scorer, the verdict is recognised where CUnit prints it, at the start of the text
 * after {@code ...} or of a line, whatever follows it on that line (the next suite's setup output,
 * e.g. {@code passed    [FAILED] PRIN command ...}); libiscsi's own {@code [FAILED]} log lines,
 * which also appear in tests that pass, are not verdicts. CUnit's suite initialisation or cleanup
 * failures and whether the run reached its {@code Run Summary} are reported apart.
 */
public final class ConformanceScore {

    /** A test's result, from best to worst. */
    public enum Status { PASS, SKIP, FAIL }

    private static final Pattern SUITE = Pattern.compile("^Suite: (\\S+)");
    private static final Pattern TEST = Pattern.compile("^  Test: (\\S+) \\.\\.\\.(.*)$");
    private static final Pattern SUITE_FAILURE =
            Pattern.compile("^WARNING - Suite (?:initialization|cleanup) failed for '.*'");
    private static final String SUMMARY = "Run Summary:";
    private static final String PASSED = "passed";
    private static final String FAILED = "FAILED";
    private static final String SKIPPED = "[SKIPPED]";

    private final Map<String, Status> results;
    private final Map<String, String> failureOutputs;
    private final List<String> suiteFailures;
    private final boolean completed;

    private ConformanceScore(Parser p) {
        this.results = Collections.unmodifiableMap(p.results);
        this.failureOutputs = Collections.unmodifiableMap(p.failureOutputs);
        this.suiteFailures = List.copyOf(p.suiteFailures);
        this.completed = p.completed;
    }

    /** Scores the suite's output (stdout and stderr together, in order). */
    public static ConformanceScore parse(String text) {
        Parser p = new Parser();
        for (String line : text.split("\\R", -1)) {
            p.line(line);
        }
        p.end();
        return new ConformanceScore(p);
    }

    /** Every test ({@code Suite.Test}, sorted) with its worst status. */
    public Map<String, Status> results() {
        return results;
    }

    /** How many distinct tests ended with {@code status}. */
    public int count(Status status) {
        return (int) results.values().stream().filter(s -> s == status).count();
    }

    /** The failed tests, sorted. */
    public List<String> failures() {
        return results.entrySet().stream().filter(e -> e.getValue() == Status.FAIL).map(Map.Entry::getKey).toList();
    }

    /** The output of a failed test's first failing run, CUnit's failure records included ("" if none). */
    public String failureOutput(String test) {
        return failureOutputs.getOrDefault(test, "");
    }

    /** CUnit's "WARNING - Suite initialization/cleanup failed" lines. */
    public List<String> suiteFailures() {
        return suiteFailures;
    }

    /** True if the suite printed its {@code Run Summary}, i.e. it did not die or get killed. */
    public boolean completed() {
        return completed;
    }

    /** {@code conformance tests=N pass=P skip=S fail=F}, the developer scorer's last line. */
    public String scoreLine() {
        return "conformance tests=" + results.size() + " pass=" + count(Status.PASS) + " skip="
                + count(Status.SKIP) + " fail=" + count(Status.FAIL);
    }

    /** Each failed test's name and the last {@code tailLines} lines of its failing run's output. */
    public String describeFailures(int tailLines) {
        StringBuilder sb = new StringBuilder();
        for (String test : failures()) {
            List<String> lines = Arrays.asList(failureOutput(test).split("\\R"));
            sb.append("--- FAIL ").append(test).append(" (last ").append(tailLines).append(" lines) ---\n");
            for (String l : lines.subList(Math.max(0, lines.size() - tailLines), lines.size())) {
                sb.append(l).append('\n');
            }
        }
        return sb.toString();
    }

    /** Line-by-line state machine over the suite's output. */
    private static final class Parser {
        private final Map<String, Status> results = new TreeMap<>();
        private final Map<String, String> failureOutputs = new TreeMap<>();
        private final List<String> suiteFailures = new ArrayList<>();
        private boolean completed;
        private String suite = "?";
        private String test; // the open test, null between tests
        private Status verdict; // null until CUnit's verdict for the open test
        private final StringBuilder output = new StringBuilder();

        void line(String line) {
            Matcher m = SUITE.matcher(line);
            if (m.find()) {
                close();
                suite = m.group(1);
                return;
            }
            m = TEST.matcher(line);
            if (m.matches()) {
                close();
                test = suite + "." + m.group(1);
                output.append(line, 0, m.start(2));
                judge(m.group(2));
                output.append(m.group(2)).append('\n');
                return;
            }
            if (SUITE_FAILURE.matcher(line).find()) {
                close();
                suiteFailures.add(line.trim());
                return;
            }
            if (line.startsWith(SUMMARY)) {
                close();
                completed = true;
                return;
            }
            if (test != null) {
                judge(line);
                output.append(line).append('\n');
            }
        }

        /**
         * Takes the verdict if {@code fragment} (text after "..." or a whole line, not yet in
         * {@code output}) starts with one; what follows it on that line is not the test's.
         */
        private void judge(String fragment) {
            if (verdict != null) {
                return;
            }
            if (fragment.startsWith(PASSED)) {
                verdict = output.indexOf(SKIPPED) >= 0 ? Status.SKIP : Status.PASS;
            } else if (fragment.startsWith(FAILED)) {
                verdict = Status.FAIL;
            }
        }

        /** Records the open test: its verdict, or FAIL if it never got one. */
        private void close() {
            if (test == null) {
                return;
            }
            if (verdict == null) {
                output.append("[no verdict: the test's output ended here]\n");
            }
            Status status = verdict == null ? Status.FAIL : verdict;
            Status before = results.get(test);
            if (before == null || status.compareTo(before) > 0) {
                results.put(test, status);
            }
            if (status == Status.FAIL) {
                failureOutputs.putIfAbsent(test, output.toString());
            }
            test = null;
            verdict = null;
            output.setLength(0);
        }

        void end() {
            close();
        }
    }
}
