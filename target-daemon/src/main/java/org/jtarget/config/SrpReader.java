package org.jtarget.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the SRP side of {@code targets[]}: {@code srp: {id-ext, ioc-guid}}, the SRP target port
 * identifier a target on an SRP portal ({@code transport: srp}) must have and no other target may,
 * and the SRP initiator port names {@code acl} takes besides iSCSI names.
 */
final class SrpReader {

    private static final Set<String> KEYS = ConfigNode.keys("id-ext", "ioc-guid");
    /** An 8-byte half of an identifier: 0x and 1 to 16 hex digits. */
    private static final Pattern ID = Pattern.compile("0[xX][0-9A-Fa-f]{1,16}");
    /**
     * An SRP initiator port identifier (T10 SRP r16a) as a name: 0x and its 16 bytes in hex. For
     * Linux's ib_srp: 8 bytes initiator_ext (usually 0), then the interface id of the port's GID.
     */
    private static final Pattern INITIATOR_PORT_NAME = Pattern.compile("0[xX][0-9A-Fa-f]{32}");
    /** Added to the message of an ACL name that is neither an iSCSI nor an SRP name. */
    static final String INITIATOR_PORT_NAME_FORM = "; or be an SRP initiator port name: 0x and 32 hex digits";

    private SrpReader() {
    }

    /**
     * The {@code srp} key of {@code target}: required if one of its portals is an SRP portal, refused
     * otherwise (it would never be used), and unique among targets.
     *
     * @param owners  the identifiers read so far and the target (iqn) of each; this one is added
     * @return the identifier, or null for a target on no SRP portal
     */
    static SrpPortIdConfig portId(ConfigNode target, String iqn, List<String> portalNames, List<PortalConfig> portals,
                                  Map<SrpPortIdConfig, String> owners) throws ConfigException {
        boolean onSrpPortal = portals.stream()
                .anyMatch(p -> p.transport() == PortalConfig.Transport.SRP && portalNames.contains(p.name()));
        ConfigNode node = target.map("srp");
        if (node == null) {
            if (onSrpPortal) {
                throw target.error("srp", "missing (a target on an SRP portal needs its SRP target port identifier: "
                        + "srp: {id-ext, ioc-guid})");
            }
            return null;
        }
        if (!onSrpPortal) {
            throw target.error("srp", "none of this target's portals is an SRP portal (transport: srp), "
                    + "so it would never be used");
        }
        node.requireOnlyKeys(KEYS);
        SrpPortIdConfig id = new SrpPortIdConfig(half(node, "id-ext"), half(node, "ioc-guid"));
        String other = owners.putIfAbsent(id, iqn);
        if (other != null) {
            throw target.error("srp", "duplicate SRP target port identifier, also used by target " + other);
        }
        return id;
    }

    /** One 8-byte half: text (unquoted 0x... is text too, see {@link EmptyAwareYamlConfiguration}). */
    private static long half(ConfigNode node, String key) throws ConfigException {
        Object v = node.scalar(key);
        if (v == null) {
            throw node.error(key, "missing (required)");
        }
        if (!(v instanceof String s && ID.matcher(s).matches())) {
            throw node.error(key, "expected 0x and 1 to 16 hex digits, got '" + v + "'");
        }
        return Long.parseUnsignedLong(s.substring(2), 16);
    }

    /** The lowercase form of {@code name} if it is an SRP initiator port name, else null. */
    static String initiatorPortName(String name) {
        return INITIATOR_PORT_NAME.matcher(name).matches() ? name.toLowerCase(Locale.ROOT) : null;
    }
}
