package org.jtarget.config;

import java.util.List;

/**
 * An iSCSI target ({@code targets[]}).
 *
 * @param iqn          the target name (iqn., eui. or naa. format, RFC 7143 4.2.7), key {@code iqn}
 * @param alias        TargetAlias (RFC 7143 13.6), or null
 * @param portalNames  the portals it is reachable through (at least one)
 * @param luns         its logical units, ascending by LUN
 * @param acl          the initiators allowed to log in and the LUNs each sees; {@code "*"} alone
 *                     allows any. Required: an open target must be asked for, not be the
 *                     accident of a missing key
 * @param chap         CHAP credentials, or null for AuthMethod=None
 */
public record TargetConfig(String iqn, String alias, List<String> portalNames, List<LunConfig> luns,
                           List<AclConfig> acl, ChapConfig chap) {

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
