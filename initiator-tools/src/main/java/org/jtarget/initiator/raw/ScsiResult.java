package org.jtarget.initiator.raw;

import java.util.HexFormat;

/**
 * The outcome of one SCSI command over the raw client.
 *
 * @param status   SCSI status byte (SAM-5 5.3): 0x00 GOOD, 0x02 CHECK CONDITION...
 * @param response iSCSI response code (RFC 7143 11.4.3): 0x00 Command Completed at Target; over SRP
 *                 the SRP_RSP's RSP_CODE when it carries one (0 otherwise)
 * @param data     the Data-In bytes received (empty for no-data and write commands)
 * @param sense    sense data from the SCSI Response's data segment (empty if none)
 * @param residual the Residual Count, signed: positive for underflow, negative for overflow
 */
public record ScsiResult(int status, int response, byte[] data, byte[] sense, int residual) {

    public static final int GOOD = 0x00;
    public static final int CHECK_CONDITION = 0x02;

    public boolean good() {
        return status == GOOD && response == 0;
    }

    /** The sense key (SPC-4 4.5), from fixed (0x70/0x71) or descriptor (0x72/0x73) sense; -1 if none. */
    public int senseKey() {
        if (sense.length < 3) {
            return -1;
        }
        int code = sense[0] & 0x7f;
        return (code == 0x72 || code == 0x73 ? sense[1] : sense[2]) & 0x0f;
    }

    /** The ADDITIONAL SENSE CODE (SPC-4 4.5.2, 4.5.3), from fixed or descriptor sense; -1 if none. */
    public int additionalSenseCode() {
        return senseByte(2, 12);
    }

    /** The ADDITIONAL SENSE CODE QUALIFIER; -1 if none. */
    public int additionalSenseCodeQualifier() {
        return senseByte(3, 13);
    }

    private int senseByte(int descriptorOffset, int fixedOffset) {
        if (sense.length < 3) {
            return -1;
        }
        int code = sense[0] & 0x7f;
        int offset = code == 0x72 || code == 0x73 ? descriptorOffset : fixedOffset;
        return offset < sense.length ? sense[offset] & 0xff : -1;
    }

    @Override
    public String toString() {
        return "ScsiResult[status=0x" + Integer.toHexString(status) + " response=0x" + Integer.toHexString(response)
                + " data=" + data.length + " bytes residual=" + residual + " sense=" + HexFormat.of().formatHex(sense)
                + "]";
    }
}
