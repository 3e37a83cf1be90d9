package org.jtarget.initiator.raw;

import java.util.Map;

/**
 * The end of a login attempt (RFC 7143 11.13).
 *
 * @param statusClass  0 success, 1 redirection, 2 initiator error, 3 target error (RFC 7143 11.13.5)
 * @param statusDetail the detail code within the class
 * @param tsih         the session handle the target assigned (0 when the login failed)
 * @param keys         every key the target sent during the login, last value wins
 * @param fullFeature  whether the target took the connection to the Full Feature Phase
 */
public record LoginResult(int statusClass, int statusDetail, int tsih, Map<String, String> keys,
                          boolean fullFeature) {

    public boolean succeeded() {
        return statusClass == 0 && fullFeature;
    }

    @Override
    public String toString() {
        return "LoginResult[status=" + statusClass + "/0x" + Integer.toHexString(statusDetail) + " tsih=" + tsih
                + " fullFeature=" + fullFeature + " keys=" + keys + "]";
    }
}
