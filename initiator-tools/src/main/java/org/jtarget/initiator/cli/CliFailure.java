package org.jtarget.initiator.cli;

/** Ends the CLI with a message on stderr and a documented exit code (see {@link JtargetInitiator}). */
public class CliFailure extends Exception {

    public static final int MISCOMPARE = 1;
    public static final int USAGE = 2;
    public static final int LOGIN_FAILED = 3;
    public static final int CHECK_CONDITION = 4;
    public static final int IO_ERROR = 5;

    private final int exitCode;

    public CliFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /** A bad command line: exit 2 with the usage line. */
    public static CliFailure usage(String message) {
        return new CliFailure(USAGE, message);
    }

    public int exitCode() {
        return exitCode;
    }
}
