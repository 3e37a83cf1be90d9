package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.ChapCredentials;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** A LoginContext over a fixed list of targets. */
class FakeLoginContext implements LoginContext {

    static final IscsiPortalDefinition PORTAL = new IscsiPortalDefinition("p1", "192.0.2.1", 3260, 1);
    static final IscsiPortalDefinition PORTAL6 = new IscsiPortalDefinition("p2", "2001:db8::1", 3261, 2);

    final List<IscsiTargetDefinition> targets = new ArrayList<>();
    boolean sessionExists;

    static IscsiTargetDefinition target(String name, ChapCredentials chap, String... allowed) {
        return new IscsiTargetDefinition(name, "alias-" + name.substring(name.length() - 1), null,
                allowed.length == 0 ? List.of("*") : List.of(allowed), chap, List.of(PORTAL, PORTAL6));
    }

    FakeLoginContext with(IscsiTargetDefinition t) {
        targets.add(t);
        return this;
    }

    @Override
    public IscsiTargetDefinition findTarget(String targetName) {
        for (IscsiTargetDefinition t : targets) {
            if (t.name().equalsIgnoreCase(targetName)) {
                return t;
            }
        }
        return null;
    }

    @Override
    public Collection<IscsiTargetDefinition> targets() {
        return targets;
    }

    @Override
    public IscsiPortalDefinition portal() {
        return PORTAL;
    }

    @Override
    public boolean sessionExists(String initiatorName, long isid, int tsih, String targetName) {
        return sessionExists;
    }
}
