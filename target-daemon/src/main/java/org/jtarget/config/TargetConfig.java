package org.jtarget.config;

import java.util.List;

/**
 * A target ({@code targets[]}): an iSCSI target, reachable over SRP as well when one of its portals
 * is {@code transport: srp}.
 *
 * @param iqn          the target name (iqn., eui. or naa. format, RFC 7143 4.2.7), key {@code iqn}
 * @param alias        TargetAlias (RFC 7143 13.6), or null
 * @param portalNames  the portals it is reachable through (at least one)
 * @param luns         its logical units, ascending by LUN
 * @param acl          the initiators allowed to log in (iSCSI names, or SRP initiator port names:
 *                     0x and 32 hex digits, lowercase) and the LUNs each sees; {@code "*"} alone
 *                     allows any. Required: an open target must be asked for, not be the
 *                     accident of a missing key
 * @param chap         CHAP credentials, or null for AuthMethod=None
 * @param srp          key {@code srp: {id-ext, ioc-guid}}: the SRP target port identifier; required
 *                     when a portal of the target is {@code transport: srp}, else absent (null);
 *                     unique among targets
 */
public record TargetConfig(String iqn, String alias, List<String> portalNames, List<LunConfig> luns,
                           List<AclConfig> acl, ChapConfig chap, SrpPortIdConfig srp) {

    public TargetConfig {
        portalNames = List.copyOf(portalNames);
        luns = List.copyOf(luns);
        acl = List.copyOf(acl);
    }

    /** The initiator names of the ACL entries ({@code "*"} included). */
    public List<String> aclInitiators() {
        return acl.stream().map(AclConfig::initiator).toList();
    }
}
