package org.jtarget.fabric.srp;

/**
 * What the SRP fabric keeps with a target in the core's registry (its fabric settings): the SRP
 * target port identifier it answers to on SRP portals.
 *
 * @param targetPortName "0x" and the identifier's 32 lowercase hex digits (id_ext, then ioc_guid)
 */
public record SrpTargetSettings(String targetPortName) {
}
