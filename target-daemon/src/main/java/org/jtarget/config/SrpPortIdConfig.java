package org.jtarget.config;

/**
 * The SRP target port identifier of a target on SRP portals ({@code targets[].srp}): the 16 bytes
 * an initiator names in its SRP_LOGIN_REQ (T10 SRP r16a), the identifier extension first, then the
 * I/O controller GUID. Linux's ib_srp takes the same two as {@code id_ext=0x...,ioc_guid=0x...} in
 * {@code add_target}. Each is 0x and 1 to 16 hex digits in the config, either case.
 *
 * @param idExt    {@code id-ext}: the identifier extension, the first 8 bytes
 * @param iocGuid  {@code ioc-guid}: the I/O controller GUID, the last 8 bytes
 */
public record SrpPortIdConfig(long idExt, long iocGuid) {

    /** The identifier as a name: 0x and 32 lowercase hex digits, id-ext's then ioc-guid's. */
    public String targetPortName() {
        return "0x%016x%016x".formatted(idExt, iocGuid);
    }
}
