package org.jtarget.initiator.raw;

/**
 * A received PDU whose HeaderDigest or DataDigest does not match its bytes (RFC 7143 7.8). The
 * raw client never accepts such a PDU silently: the test sees this exception, naming the digest.
 */
public final class DigestMismatchException extends IscsiProtocolException {

    private final IscsiDigest.Kind kind;

    public DigestMismatchException(IscsiDigest.Kind kind, String pdu, int expected, int received) {
        super(kind.key() + " mismatch on " + pdu + ": computed 0x" + Integer.toHexString(expected)
                + ", received 0x" + Integer.toHexString(received));
        this.kind = kind;
    }

    /** Which digest failed. */
    public IscsiDigest.Kind kind() {
        return kind;
    }
}
