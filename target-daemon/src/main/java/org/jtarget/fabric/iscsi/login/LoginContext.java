package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;

import java.util.Collection;

/**
 * What a connection's login needs to know about the rest of the daemon, supplied by the
 * session layer. Called on the connection's event loop; must not block.
 */
public interface LoginContext {

    /** The target with that name (case-insensitive, RFC 3722), or null if there is none. */
    IscsiTargetDefinition findTarget(String targetName);

    /** Every target this portal serves (SendTargets=All in a discovery session). */
    Collection<IscsiTargetDefinition> targets();

    /** The portal this connection arrived on (its TargetPortalGroupTag goes into the login response). */
    IscsiPortalDefinition portal();

    /**
     * For a login with a non-zero TSIH (adding a connection to a session): true if that session
     * exists for this initiator name, ISID and target. A false answer fails the login with
     * status 0x020a (session does not exist).
     */
    boolean sessionExists(String initiatorName, long isid, int tsih, String targetName);
}
