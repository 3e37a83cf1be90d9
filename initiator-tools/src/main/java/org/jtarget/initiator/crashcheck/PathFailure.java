package org.jtarget.initiator.crashcheck;

import org.jtarget.initiator.cli.CliFailure;

/**
 * A path to the LU cannot be used now, which is no fault of the LU's data: the connection was
 * lost (or never made), the login was refused, or the path's target port group answered that the
 * LU is not accessible through it (NOT READY 04h/0Ah, 0Bh, 0Ch: ALUA transition, standby,
 * unavailable, SPC-4 5.15.2.4). With several paths crashcheck moves to the next one
 * ({@link PathSet}); with one, the failure ends the command as before ({@link #asCliFailure}).
 */
final class PathFailure extends Exception {

    /** What went wrong on the path. */
    enum Kind {
        /** No connection, or it was lost; the session (if any) is aborted. */
        CONNECTION,
        /** The target refused the login. */
        LOGIN,
        /** The LU is not accessible through this path's target port group now. */
        NOT_ACCESSIBLE
    }

    private final LunPath path;
    private final Kind kind;
    private final String detail;

    PathFailure(LunPath path, Kind kind, String detail, Throwable cause) {
        super(path.describe() + ": " + detail, cause);
        this.path = path;
        this.kind = kind;
        this.detail = detail;
    }

    LunPath path() {
        return path;
    }

    Kind kind() {
        return kind;
    }

    /** What happened, without the path's name. */
    String detail() {
        return detail;
    }

    /**
     * The CLI failure a single-path command ends with: exit 5 for a connection, 3 for a refused
     * login, 4 for a CHECK CONDITION (the codes these failures had before paths existed).
     */
    CliFailure asCliFailure() {
        int code = switch (kind) {
            case CONNECTION -> CliFailure.IO_ERROR;
            case LOGIN -> CliFailure.LOGIN_FAILED;
            case NOT_ACCESSIBLE -> CliFailure.CHECK_CONDITION;
        };
        return new CliFailure(code, detail);
    }
}
