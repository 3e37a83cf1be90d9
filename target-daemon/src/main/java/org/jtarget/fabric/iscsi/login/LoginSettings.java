package org.jtarget.fabric.iscsi.login;

/**
 * The target side's limits and preferences for login negotiation (RFC 7143 13): what it declares
 * or accepts. Lengths are in bytes.
 *
 * @param maxRecvDataSegmentLength the target's MaxRecvDataSegmentLength (declared)
 * @param maxBurstLength           the largest MaxBurstLength the target accepts (min function)
 * @param firstBurstLength         the largest FirstBurstLength the target accepts (min function)
 * @param maxOutstandingR2T        the largest MaxOutstandingR2T the target accepts (min function)
 * @param maxConnections           the largest MaxConnections the target accepts (min function)
 * @param immediateData            the target's ImmediateData preference (AND function)
 * @param initialR2T               the target's InitialR2T preference (OR function)
 * @param defaultTime2Wait         DefaultTime2Wait the target offers (max function)
 * @param defaultTime2Retain       DefaultTime2Retain the target offers (min function)
 * @param commandWindow            how many commands the target admits past ExpCmdSN (MaxCmdSN = ExpCmdSN + window - 1)
 */
public record LoginSettings(int maxRecvDataSegmentLength, int maxBurstLength, int firstBurstLength,
                            int maxOutstandingR2T, int maxConnections, boolean immediateData, boolean initialR2T,
                            int defaultTime2Wait, int defaultTime2Retain, int commandWindow) {

    /** Sensible defaults for a disk target: 256 KiB segments, 1 MiB bursts, 128 commands in flight. */
    public static LoginSettings defaults() {
        return new LoginSettings(262144, 1048576, 262144, 8, 8, true, false, 2, 20, 128);
    }
}
