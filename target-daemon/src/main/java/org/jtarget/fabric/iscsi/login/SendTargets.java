package org.jtarget.fabric.iscsi.login;

import java.util.List;
import java.util.Map;

/**
 * Answers a SendTargets text request (RFC 7143 Appendix C): TargetName and TargetAddress
 * ("host:port,tpgt", IPv6 in brackets) pairs.
 * API CONTRACT (implemented by the pdu/login work).
 */
public final class SendTargets {

    private SendTargets() {
    }

    /**
     * @param value              the SendTargets value: "All", a target name, or "" (the session's own target)
     * @param context            the portal's login context (targets and portal)
     * @param sessionTargetName  the session's target (normal session), or null in a discovery session
     * @return the key=value pairs to send (empty if nothing matches)
     */
    public static List<Map.Entry<String, String>> respond(String value, LoginContext context, String sessionTargetName) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }
}
