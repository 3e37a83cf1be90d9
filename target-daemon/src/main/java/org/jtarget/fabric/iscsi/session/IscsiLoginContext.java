package org.jtarget.fabric.iscsi.session;

import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.login.LoginContext;

import java.util.Collection;

/** The {@link LoginContext} of one connection: its portal's targets and the live sessions. */
final class IscsiLoginContext implements LoginContext {

    private final IscsiPortalDefinition portal;
    private final Collection<IscsiTargetDefinition> targets;
    private final SessionRegistry registry;

    IscsiLoginContext(IscsiPortalDefinition portal, Collection<IscsiTargetDefinition> targets,
                      SessionRegistry registry) {
        this.portal = portal;
        this.targets = targets;
        this.registry = registry;
    }

    @Override
    public IscsiTargetDefinition findTarget(String targetName) {
        for (IscsiTargetDefinition t : targets) {
            if (t.name().equalsIgnoreCase(targetName)) { // RFC 3722: names compare case-insensitively
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
        return portal;
    }

    @Override
    public boolean sessionExists(String initiatorName, long isid, int tsih, String targetName) {
        return registry.find(tsih, initiatorName, isid, targetName) != null;
    }
}
