package org.jtarget.daemon.api;

/**
 * A request the API refuses: the HTTP status, a stable code a script can test, and a message for
 * people naming the field or key at fault. Sent as {@code { "code": ..., "message": ... }}.
 */
public final class ApiException extends Exception {

    private final int status;
    private final String code;

    public ApiException(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    static ApiException notFound(String what) {
        return new ApiException(404, "not-found", what);
    }
}
