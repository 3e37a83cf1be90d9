package org.jtarget.fabric.iscsi.iser;

import org.jtarget.fabric.rdma.Decoded;

/**
 * The iSER CM header in the private data of the connection manager's connect request and accept
 * (RFC 7145 Annex A; Linux {@code struct iser_cm_hdr}, include/scsi/iser.h): one flags byte and
 * three reserved bytes.
 *
 * <ul>
 * <li>request (initiator): 0x80 the initiator does not support zero-based virtual addresses
 *     (its STags name absolute addresses), 0x40 it does not support send-with-invalidate. Linux's
 *     ib_iser always sets 0x80 and sets 0x40 when its device cannot invalidate remotely;</li>
 * <li>accept (target, as Linux isert answers): 0x80 zero-based addressing is not used, 0x40
 *     send-with-invalidate is not used (set when the initiator does not take it).</li>
 * </ul>
 *
 * @param zeroBasedAddressingUnsupported request: the initiator cannot use ZBVA; accept: not used
 * @param sendWithInvalidateUnsupported  request: the initiator cannot take SEND with invalidate;
 *                                       accept: the target will not send one
 */
public record IserCmPrivateData(boolean zeroBasedAddressingUnsupported, boolean sendWithInvalidateUnsupported) {

    public static final int LENGTH = 4;
    public static final int ZBVA_NOT_SUPPORTED = 0x80;
    public static final int SEND_WITH_INVALIDATE_NOT_SUPPORTED = 0x40;

    /**
     * What an initiator that sends no iSER CM header asks for: kernels before 4.2 connected with
     * empty private data, meaning absolute addresses and no invalidation.
     */
    public static final IserCmPrivateData LEGACY_INITIATOR = new IserCmPrivateData(true, true);

    /**
     * What the target accepts {@code request} with: absolute addresses always (its STags name
     * absolute addresses, as Linux's do); SEND with invalidate when the initiator takes it (Linux
     * ib_iser reads this flag: it treats a remote invalidation it was not promised as a protocol
     * error and ends the connection).
     */
    public static IserCmPrivateData acceptFor(IserCmPrivateData request) {
        return new IserCmPrivateData(true, request.sendWithInvalidateUnsupported());
    }

    /**
     * Decodes the private data of a connect request or accept. Empty private data is
     * {@link #LEGACY_INITIATOR}; one to three bytes cannot be an iSER CM header. Bytes beyond the
     * four are ignored (a transport may pad private data).
     */
    public static Decoded<IserCmPrivateData> decode(byte[] privateData) {
        if (privateData == null || privateData.length == 0) {
            return Decoded.ok(LEGACY_INITIATOR);
        }
        if (privateData.length < LENGTH) {
            return Decoded.malformed("iSER CM header of " + privateData.length + " bytes, expected " + LENGTH);
        }
        int flags = privateData[0] & 0xff;
        return Decoded.ok(new IserCmPrivateData((flags & ZBVA_NOT_SUPPORTED) != 0,
                (flags & SEND_WITH_INVALIDATE_NOT_SUPPORTED) != 0));
    }

    /** The four bytes of this header. */
    public byte[] encode() {
        int flags = (zeroBasedAddressingUnsupported ? ZBVA_NOT_SUPPORTED : 0)
                | (sendWithInvalidateUnsupported ? SEND_WITH_INVALIDATE_NOT_SUPPORTED : 0);
        return new byte[] {(byte) flags, 0, 0, 0};
    }
}
