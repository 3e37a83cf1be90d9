package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;

import java.util.HexFormat;

/**
 * A 16-byte SRP port identifier (SRP r16a, SRP_LOGIN_REQ: INITIATOR PORT IDENTIFIER and TARGET PORT
 * IDENTIFIER of SRP_LOGIN_REQ), as two big-endian halves: {@code high} is bytes 0-7, {@code low}
 * bytes 8-15. Linux's ib_srp fills the initiator's with its initiator extension and the port
 * GID's interface identifier, and the target's with the target's {@code id_ext} and
 * {@code ioc_guid} (in that order, as r16a has it).
 *
 * <p>{@link #name()} is the SCSI port name the core uses for SRP ports
 * ({@code org.jtarget.scsi.spi.TransportIds}: "0x" and 32 hex digits).
 *
 * @param high bytes 0-7
 * @param low  bytes 8-15
 */
public record SrpPortId(long high, long low) {

    /** Bytes of an identifier on the wire. */
    public static final int LENGTH = 16;
    private static final String PREFIX = "0x";
    private static final int HEX_DIGITS = 32;
    private static final int HALF_DIGITS = 16;

    /** A target port identifier: bytes 0-7 {@code id_ext}, bytes 8-15 {@code ioc_guid} (SRP r16a). */
    public static SrpPortId of(long idExt, long iocGuid) {
        return new SrpPortId(idExt, iocGuid);
    }

    /**
     * Parses a port name: an optional "0x" (either case) and exactly 32 hex digits (either case).
     *
     * @throws IllegalArgumentException if {@code name} is not one (configuration input, not wire)
     */
    public static SrpPortId parse(String name) {
        String hex = name.regionMatches(true, 0, PREFIX, 0, PREFIX.length()) ? name.substring(PREFIX.length()) : name;
        if (hex.length() != HEX_DIGITS || !hex.chars().allMatch(HexFormat::isHexDigit)) {
            throw new IllegalArgumentException("not an SRP port name (\"0x\" and 32 hex digits): " + name);
        }
        return new SrpPortId(HexFormat.fromHexDigitsToLong(hex, 0, HALF_DIGITS),
                HexFormat.fromHexDigitsToLong(hex, HALF_DIGITS, HEX_DIGITS));
    }

    /** Reads the 16 bytes at {@code index} (absolute; indices of {@code in} unchanged). */
    public static SrpPortId read(ByteBuf in, int index) {
        return new SrpPortId(in.getLong(index), in.getLong(index + Long.BYTES));
    }

    /** Writes the 16 bytes at {@code index} (absolute; indices of {@code out} unchanged). */
    public void write(ByteBuf out, int index) {
        out.setLong(index, high);
        out.setLong(index + Long.BYTES, low);
    }

    /** "0x" and the 32 lowercase hex digits of the 16 bytes: the core's name of this SRP port. */
    public String name() {
        HexFormat hex = HexFormat.of();
        return PREFIX + hex.toHexDigits(high) + hex.toHexDigits(low);
    }

    @Override
    public String toString() {
        return name();
    }
}
