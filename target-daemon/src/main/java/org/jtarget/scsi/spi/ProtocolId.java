package org.jtarget.scsi.spi;

/**
 * SCSI transport protocols by their PROTOCOL IDENTIFIER (SPC-4 7.6.1, table "PROTOCOL IDENTIFIER
 * values"), the 4-bit code that VPD designators (SPC-4 7.8.6.1), TransportIDs (SPC-4 7.6.4) and
 * protocol-specific pages carry. Only the protocols a fabric of this daemon speaks, or is about
 * to, are listed; {@link #fromCode} answers null for the others.
 */
public enum ProtocolId {
    /** 4h: SCSI RDMA Protocol (SRP, over InfiniBand/RoCE). */
    SRP(0x4),
    /** 5h: Internet SCSI (iSCSI, RFC 7143; iSER shares it). */
    ISCSI(0x5);

    private final int code;

    ProtocolId(int code) {
        this.code = code;
    }

    /** The 4-bit PROTOCOL IDENTIFIER. */
    public int code() {
        return code;
    }

    /** The protocol whose identifier is {@code code} (low 4 bits), or null if none listed has it. */
    public static ProtocolId fromCode(int code) {
        for (ProtocolId p : values()) {
            if (p.code == (code & 0x0F)) {
                return p;
            }
        }
        return null;
    }
}
