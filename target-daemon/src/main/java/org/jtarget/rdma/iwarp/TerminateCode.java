package org.jtarget.rdma.iwarp;

/**
 * The reason a TERMINATE gives (RFC 5040 7.2: layer, error type, error code), the ones this provider
 * sends: per failure, the layer that found it.
 */
enum TerminateCode {
    /** RDMAP, remote protection: the READ request's source STag is not valid. */
    RDMAP_INVALID_STAG(0, 1, 0x00),
    /** RDMAP, remote protection: the READ request's source range leaves its region. */
    RDMAP_BASE_BOUNDS(0, 1, 0x01),
    /** RDMAP, remote operation: an opcode not valid here. */
    RDMAP_UNEXPECTED_OPCODE(0, 2, 0x06),
    /** RDMAP, remote operation: the RDMAP version is not 1. */
    RDMAP_VERSION(0, 2, 0x05),
    /** RDMAP, remote operation: catastrophic local error (a store endpoint's I/O failed). */
    RDMAP_CATASTROPHIC_LOCAL(0, 2, 0x07),
    /** DDP, tagged buffer: the STag is not valid. */
    DDP_INVALID_STAG(1, 1, 0x00),
    /** DDP, tagged buffer: the segment leaves its region. */
    DDP_BASE_BOUNDS(1, 1, 0x01),
    /** DDP, tagged buffer: the DDP version is not 1. */
    DDP_TAGGED_VERSION(1, 1, 0x04),
    /** DDP, untagged buffer: no such queue number. */
    DDP_INVALID_QN(1, 2, 0x01),
    /** DDP, untagged buffer: no receive posted for the message (iWARP has no RNR). */
    DDP_NO_BUFFER(1, 2, 0x02),
    /** DDP, untagged buffer: MSN out of range. */
    DDP_MSN_RANGE(1, 2, 0x03),
    /** DDP, untagged buffer: message offset not where the message continues. */
    DDP_INVALID_MO(1, 2, 0x04),
    /** DDP, untagged buffer: the message is longer than its buffer. */
    DDP_TOO_LONG(1, 2, 0x05),
    /** LLP (MPA): CRC mismatch. */
    MPA_CRC(2, 0, 0x02),
    /** LLP (MPA): the FPDU is malformed (marker or length). */
    MPA_FPDU(2, 0, 0x03),
    /** LLP (MPA): more READ requests than the IRD negotiated (RFC 6581). */
    MPA_INSUFFICIENT_IRD(2, 0, 0x06),
    /** LLP (MPA): the first FPDU is not the RTR negotiated (RFC 6581). */
    MPA_NO_MATCHING_RTR(2, 0, 0x07);

    final int layer;
    final int type;
    final int code;

    TerminateCode(int layer, int type, int code) {
        this.layer = layer;
        this.type = type;
        this.code = code;
    }

    /** The TERMINATE control word (no header copied: M, D and R clear). */
    int controlWord() {
        return layer << 28 | type << 24 | code << 16;
    }
}
