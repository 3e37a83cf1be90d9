package org.jtarget.fabric.iscsi.login;

import io.netty.buffer.ByteBufAllocator;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;

/**
 * The login phase of one connection (RFC 7143 6, 11.12-11.13): stages (security, operational,
 * full feature), CSG/NSG/T/C handling, AuthMethod and CHAP, operational key negotiation, target
 * lookup and ACL, login status classes. The session layer sets the TSIH of a new session on the
 * final response before sending it.
 * API CONTRACT (implemented by the pdu/login work).
 */
public final class LoginNegotiator {

    public LoginNegotiator(LoginContext context, LoginSettings settings) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }

    /** Handles one Login Request (borrows it) and returns the response and what to do next. */
    public LoginStep handle(IscsiPdu request, ByteBufAllocator alloc) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }
}
