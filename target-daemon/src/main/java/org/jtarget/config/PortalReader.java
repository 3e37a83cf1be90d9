package org.jtarget.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and checks {@code portals[]}: {@code name}, {@code listen: host:port}, {@code portal-group-tag},
 * the ALUA keys of the portal's target port group, {@code alua-state} ({@code active-optimized},
 * {@code active-non-optimized}, {@code standby}, {@code unavailable}) and {@code alua-preferred}, and
 * {@code transport} ({@code tcp}, the default, {@code iser} or {@code srp}).
 */
final class PortalReader {

    private static final Set<String> KEYS = ConfigNode.keys("name", "listen", "portal-group-tag", "alua-state",
            "alua-preferred", "transport");

    private PortalReader() {
    }

    static List<PortalConfig> read(ConfigNode root) throws ConfigException {
        List<ConfigNode> nodes = root.maps("portals");
        if (nodes.isEmpty()) {
            throw root.error("portals", "missing (at least one portal is required)");
        }
        List<PortalConfig> portals = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> endpoints = new HashSet<>();
        Map<Integer, PortalConfig> byTag = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            ConfigNode node = nodes.get(i);
            PortalConfig p = readOne(node, i + 1);
            if (!names.add(p.name())) {
                throw node.error("name", "duplicate portal name '" + p.name() + "'");
            }
            if (!endpoints.add(p.host() + "|" + p.port())) {
                throw node.error("listen", "duplicate listen address " + p.host() + " port " + p.port());
            }
            checkSameGroup(node, p, byTag.putIfAbsent(p.portalGroupTag(), p));
            portals.add(p);
        }
        return portals;
    }

    private static PortalConfig readOne(ConfigNode node, int defaultTag) throws ConfigException {
        node.requireOnlyKeys(KEYS);
        String name = node.requireString("name");
        ListenAddress listen = ListenAddress.read(node, "listen");
        int tag = node.integer("portal-group-tag", defaultTag, 1, 65535);
        return new PortalConfig(name, listen.host(), listen.port(), tag, aluaState(node),
                node.bool("alua-preferred", false), transport(node));
    }

    private static PortalConfig.Transport transport(ConfigNode node) throws ConfigException {
        String text = node.string("transport");
        if (text == null) {
            return PortalConfig.Transport.TCP;
        }
        PortalConfig.Transport t = PortalConfig.Transport.ofConfigName(text);
        if (t == null) {
            throw node.error("transport", "expected tcp, iser or srp, got '" + text + "'");
        }
        return t;
    }

    private static AluaSetting aluaState(ConfigNode node) throws ConfigException {
        String text = node.string("alua-state");
        if (text == null) {
            return AluaSetting.ACTIVE_OPTIMIZED;
        }
        AluaSetting state = AluaSetting.ofConfigName(text);
        if (state == null) {
            throw node.error("alua-state", "expected one of active-optimized, active-non-optimized, standby, "
                    + "unavailable, got '" + text + "'");
        }
        return state;
    }

    /** Portals with one tag are one target port group: one ALUA state, one PREF (SPC-4 5.15.2.1). */
    private static void checkSameGroup(ConfigNode node, PortalConfig p, PortalConfig first) throws ConfigException {
        if (first == null) {
            return;
        }
        String tag = "portal group tag " + p.portalGroupTag() + " of portal '" + first.name() + "'";
        if (first.aluaState() != p.aluaState()) {
            throw node.error("alua-state", "'" + p.aluaState().configName() + "' differs from the "
                    + first.aluaState().configName() + " of " + tag + " (one target port group has one state)");
        }
        if (first.aluaPreferred() != p.aluaPreferred()) {
            throw node.error("alua-preferred", "differs from " + tag + " (one target port group)");
        }
    }
}
