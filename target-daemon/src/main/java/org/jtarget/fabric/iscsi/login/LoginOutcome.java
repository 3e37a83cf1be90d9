package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.IscsiTargetDefinition;

/**
 * A successful login: who logged in to what, with which parameters.
 *
 * @param target      the target (null for a discovery session)
 * @param parameters  the negotiated operational parameters
 * @param isid        the initiator's ISID (48 bits)
 * @param tsih        the TSIH the initiator sent (0 = new session, else connection reinstatement/addition)
 * @param cid         the connection id
 * @param expCmdSn    the ExpCmdSN after login (the Login Request's CmdSN)
 * @param nextStatSn  the StatSN to use for the first full-feature response on this connection
 */
public record LoginOutcome(IscsiTargetDefinition target, NegotiatedParameters parameters, long isid, int tsih,
                           int cid, int expCmdSn, int nextStatSn) {
}
