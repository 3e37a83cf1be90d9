package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Answers a SendTargets text request (RFC 7143 Appendix C): TargetName and TargetAddress
 * ("host:port,tpgt", IPv6 in brackets) pairs.
 *
 * <pre>
 *  TargetName=iqn.2024-01.org.example:disk1
 *  TargetAddress=192.0.2.1:3260,1
 *  TargetAddress=[2001:db8::1]:3260,2
 * </pre>
 *
 * Hosts are formatted as the definitions give them: for a portal bound to a wildcard address the
 * session layer passes a context whose portals carry the connection's local address.
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
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        if ("All".equals(value)) {
            if (sessionTargetName == null) {
                for (IscsiTargetDefinition target : context.targets()) {
                    describe(target, context.portal().rdma(), pairs);
                }
                return pairs;
            }
            // RFC 7143 Appendix C: "All" belongs to discovery sessions; in a normal session
            // only the session's own target is reported.
            value = "";
        }
        String name = value.isEmpty() ? sessionTargetName : value;
        if (name == null) {
            return pairs;
        }
        IscsiTargetDefinition target = context.findTarget(name);
        if (target != null) {
            describe(target, context.portal().rdma(), pairs);
        }
        return pairs;
    }

    /**
     * The target's name and the addresses of its portals of the asking connection's transport
     * ({@code rdma}: iSER). An initiator logs in to every address it is given with the transport
     * it discovered with (open-iscsi's node records take the discovery iface, libiscsi's iscsi-ls
     * the last address), so an iSER portal listed to a TCP discovery gets TCP logins it cannot
     * serve; Linux's LIO lists a portal only to its own network transport too. An iSER initiator
     * discovers over iSER (`iscsiadm -m discovery -I iser`) or names the portal itself.
     */
    private static void describe(IscsiTargetDefinition target, boolean rdma, List<Map.Entry<String, String>> pairs) {
        pairs.add(Map.entry("TargetName", target.name()));
        for (IscsiPortalDefinition portal : target.portals()) {
            if (portal.rdma() == rdma) {
                pairs.add(Map.entry("TargetAddress", address(portal)));
            }
        }
    }

    /** "host:port,tpgt" with an IPv6 host in brackets (RFC 7143 13.8, RFC 3986 3.2.2). */
    public static String address(IscsiPortalDefinition portal) {
        String host = portal.host();
        if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return host + ":" + portal.port() + "," + portal.portalGroupTag();
    }
}
