package org.jtarget.fabric.iscsi.login;

/**
 * Login Response Status-Class and Status-Detail pairs (RFC 7143 11.13.5), as one int
 * {@code class << 8 | detail}. Class 0 is success, 1 redirection, 2 initiator error, 3 target error.
 */
public final class LoginStatus {
    public static final int SUCCESS = 0x0000;
    public static final int TARGET_MOVED_TEMPORARILY = 0x0101;
    public static final int TARGET_MOVED_PERMANENTLY = 0x0102;
    public static final int INITIATOR_ERROR = 0x0200;
    public static final int AUTHENTICATION_FAILURE = 0x0201;
    public static final int AUTHORIZATION_FAILURE = 0x0202;
    public static final int NOT_FOUND = 0x0203;
    public static final int TARGET_REMOVED = 0x0204;
    public static final int UNSUPPORTED_VERSION = 0x0205;
    public static final int TOO_MANY_CONNECTIONS = 0x0206;
    public static final int MISSING_PARAMETER = 0x0207;
    public static final int CANT_INCLUDE_IN_SESSION = 0x0208;
    public static final int SESSION_TYPE_NOT_SUPPORTED = 0x0209;
    public static final int SESSION_DOES_NOT_EXIST = 0x020a;
    public static final int INVALID_DURING_LOGIN = 0x020b;
    public static final int TARGET_ERROR = 0x0300;
    public static final int SERVICE_UNAVAILABLE = 0x0301;
    public static final int OUT_OF_RESOURCES = 0x0302;

    private LoginStatus() {
    }

    public static int statusClass(int status) {
        return status >>> 8;
    }

    public static int statusDetail(int status) {
        return status & 0xff;
    }
}
