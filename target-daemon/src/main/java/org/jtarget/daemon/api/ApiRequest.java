package org.jtarget.daemon.api;

/**
 * One HTTP request as the routes see it, whichever listener it came through.
 *
 * @param method the HTTP method, upper case
 * @param path   the path without the query string, percent-decoded
 * @param body   the request body (empty when none)
 */
public record ApiRequest(String method, String path, byte[] body) {

    /** A request without a body. */
    public ApiRequest(String method, String path) {
        this(method, path, new byte[0]);
    }
}
