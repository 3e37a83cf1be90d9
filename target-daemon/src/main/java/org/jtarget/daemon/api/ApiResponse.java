package org.jtarget.daemon.api;

/**
 * One HTTP response: status, content type and body bytes.
 */
public record ApiResponse(int status, String contentType, byte[] body) {

    static final String JSON = "application/json";
}
