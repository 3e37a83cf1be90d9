package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.Unpooled;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;

/**
 * Logout of one connection (RFC 7143 11.14-11.15) and the target's own request for one (Async
 * Message, 11.9.1). Session loop only.
 */
final class LogoutRequests {

    /** Logout Request byte 1 low 7 bits: reason code (RFC 7143 11.14.1). */
    static final int LOGOUT_CLOSE_SESSION = 0;
    static final int LOGOUT_CLOSE_CONNECTION = 1;
    static final int LOGOUT_REMOVE_FOR_RECOVERY = 2;
    /** Logout Response codes (RFC 7143 11.15.1). */
    static final int LOGOUT_OK = 0;
    static final int LOGOUT_CID_NOT_FOUND = 1;
    static final int LOGOUT_RECOVERY_NOT_SUPPORTED = 2;
    /** Logout Response Time2Wait / Time2Retain (RFC 7143 11.15.2-3). */
    static final int TIME2WAIT_OFFSET = 40;
    static final int TIME2RETAIN_OFFSET = 42;
    /** Async Message (RFC 7143 11.9): AsyncEvent at byte 36, Parameter3 at bytes 42-43. */
    static final int ASYNC_EVENT_OFFSET = 36;
    static final int ASYNC_PARAMETER3_OFFSET = 42;
    static final int ASYNC_EVENT_LOGOUT_REQUEST = 1;

    private final IscsiConnection connection;
    private final IscsiSession session;
    /** A Logout Request waiting for the connection's tasks to end (ITT), or null. */
    private IscsiPdu waiting;

    LogoutRequests(IscsiConnection connection, IscsiSession session) {
        this.connection = connection;
        this.session = session;
    }

    /** A Logout Request whose CmdSN turn has come (consumes it). */
    void request(IscsiPdu pdu) {
        int reason = pdu.flags() & 0x7f;
        int logoutCid = pdu.word20() >>> 16;
        if (reason == LOGOUT_REMOVE_FOR_RECOVERY) {
            sendLogoutResponse(pdu, LOGOUT_RECOVERY_NOT_SUPPORTED, false); // ERL 0
            return;
        }
        if (reason == LOGOUT_CLOSE_CONNECTION && logoutCid != connection.cid()) {
            IscsiConnection other = session.connection(logoutCid);
            if (other != null) {
                other.closeNow();
            }
            sendLogoutResponse(pdu, other == null ? LOGOUT_CID_NOT_FOUND : LOGOUT_OK, false);
            return;
        }
        if (reason == LOGOUT_CLOSE_SESSION) {
            for (IscsiConnection c : session.connections().toArray(new IscsiConnection[0])) {
                if (c != connection) {
                    c.closeNow();
                }
            }
        }
        // RFC 7143 11.14: respond once the connection's outstanding tasks have ended.
        waiting = pdu;
        taskEnded();
    }

    /** Called when a task ends: a waiting logout may now be answered. */
    void taskEnded() {
        if (waiting != null && connection.tasks().isEmpty() && !connection.isClosed()) {
            IscsiPdu request = waiting;
            waiting = null;
            sendLogoutResponse(request, LOGOUT_OK, true);
        }
    }

    private void sendLogoutResponse(IscsiPdu request, int code, boolean close) {
        IscsiPdu out = connection.targetPdu(Opcode.LOGOUT_RESPONSE, Unpooled.EMPTY_BUFFER, true);
        out.finalFlag(true);
        out.byte2(code);
        out.initiatorTaskTag(request.initiatorTaskTag());
        request.release();
        if (code == LOGOUT_OK) {
            out.bhs().setShort(TIME2WAIT_OFFSET, connection.parameters().defaultTime2Wait());
            out.bhs().setShort(TIME2RETAIN_OFFSET, connection.parameters().defaultTime2Retain());
        }
        if (close) {
            connection.markClosed();
            connection.transport().sendAndClose(out);
        } else {
            connection.transport().sendAndFlush(out);
        }
    }

    /** RFC 7143 11.9.1 AsyncEvent 1: the target asks the initiator to log out within {@code seconds}. */
    void sendAsyncLogoutRequest(int seconds) {
        if (connection.isClosed()) {
            return;
        }
        IscsiPdu async = connection.targetPdu(Opcode.ASYNC_MESSAGE, Unpooled.EMPTY_BUFFER, true);
        async.finalFlag(true);
        async.initiatorTaskTag(IscsiPdu.RESERVED_TAG);
        async.bhs().setByte(ASYNC_EVENT_OFFSET, ASYNC_EVENT_LOGOUT_REQUEST);
        async.bhs().setShort(ASYNC_PARAMETER3_OFFSET, seconds);
        connection.transport().sendAndFlush(async);
    }

    /** Releases a waiting request (connection gone). */
    void release() {
        if (waiting != null) {
            waiting.release();
            waiting = null;
        }
    }
}
