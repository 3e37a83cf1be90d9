package org.jtarget.fabric.srp;

/**
 * The targets an SRP portal serves, by SRP target port identifier (SRP r16a 5.4: the TARGET PORT
 * IDENTIFIER of SRP_LOGIN_REQ, id_ext then ioc_guid). Looked up at each login, so that targets
 * added or removed at run time are seen.
 */
@FunctionalInterface
public interface SrpTargetPorts {

    /**
     * The target behind {@code targetPortName} ("0x" and the identifier's 32 lowercase hex digits),
     * or null when this portal serves none under that identifier.
     */
    SrpTarget find(String targetPortName);
}
