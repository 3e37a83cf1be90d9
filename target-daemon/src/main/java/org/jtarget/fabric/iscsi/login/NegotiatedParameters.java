package org.jtarget.fabric.iscsi.login;

/**
 * The operational parameters in force after login (RFC 7143 13). Lengths are in bytes.
 *
 * @param sessionType                      "Normal" or "Discovery"
 * @param initiatorName                    InitiatorName
 * @param initiatorAlias                   InitiatorAlias or null
 * @param targetName                       TargetName (null in a discovery session without one)
 * @param headerDigest                     CRC32C negotiated for headers
 * @param dataDigest                       CRC32C negotiated for data
 * @param maxConnections                   MaxConnections
 * @param initialR2T                       InitialR2T
 * @param immediateData                    ImmediateData
 * @param initiatorMaxRecvDataSegmentLength the initiator's MaxRecvDataSegmentLength: the most the target may send in one PDU
 * @param targetMaxRecvDataSegmentLength   the target's declared MaxRecvDataSegmentLength: the most it accepts in one PDU
 * @param maxBurstLength                   MaxBurstLength
 * @param firstBurstLength                 FirstBurstLength
 * @param defaultTime2Wait                 DefaultTime2Wait (s)
 * @param defaultTime2Retain               DefaultTime2Retain (s)
 * @param maxOutstandingR2T                MaxOutstandingR2T
 * @param dataPduInOrder                   DataPDUInOrder
 * @param dataSequenceInOrder              DataSequenceInOrder
 * @param errorRecoveryLevel               ErrorRecoveryLevel
 */
public record NegotiatedParameters(String sessionType, String initiatorName, String initiatorAlias, String targetName,
                                   boolean headerDigest, boolean dataDigest, int maxConnections, boolean initialR2T,
                                   boolean immediateData, int initiatorMaxRecvDataSegmentLength,
                                   int targetMaxRecvDataSegmentLength, int maxBurstLength, int firstBurstLength,
                                   int defaultTime2Wait, int defaultTime2Retain, int maxOutstandingR2T,
                                   boolean dataPduInOrder, boolean dataSequenceInOrder, int errorRecoveryLevel) {

    public boolean discovery() {
        return "Discovery".equals(sessionType);
    }
}
