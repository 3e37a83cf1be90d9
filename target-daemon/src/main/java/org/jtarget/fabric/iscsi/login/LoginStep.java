package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.pdu.IscsiPdu;

/**
 * The result of handling one Login Request: the response to send and what happens next.
 *
 * @param response the Login Response PDU (owned by the caller, who writes it)
 * @param kind     what to do after sending it
 * @param outcome  the negotiated session when {@code kind == FULL_FEATURE}, else null
 */
public record LoginStep(IscsiPdu response, Kind kind, LoginOutcome outcome) {

    public enum Kind {
        /** Login continues: wait for the next Login Request. */
        CONTINUE,
        /** This response is the final one (T=1, NSG=FullFeaturePhase): apply outcome after sending. */
        FULL_FEATURE,
        /** The login failed: send the response (status class 2 or 3), then close the connection. */
        FAILED
    }
}
