package org.jtarget.initiator.cli;

import java.io.IOException;
import java.time.Duration;
import org.jtarget.fabric.srp.iu.SrpPortId;
import org.jtarget.initiator.raw.ScsiResult;
import org.jtarget.initiator.srp.SrpChannel;
import org.jtarget.initiator.srp.SrpLoginRefused;

/**
 * One SRP RDMA channel to the logical unit of an {@code srp://} URL, as a {@link ScsiSession}:
 * logs in (a refusal is exit 3 with the SRP_LOGIN_REJ reason in words), lets the new nexus's unit
 * attentions pass, runs commands one at a time through the channel's first data slot, and logs
 * out (SRP_I_LOGOUT) on close.
 */
public final class SrpSession implements ScsiSession {

    private final SrpChannel channel;
    private final int lun;

    private SrpSession(SrpChannel channel, int lun) {
        this.channel = channel;
        this.lun = lun;
    }

    /**
     * Logs in to {@code url}'s target port as initiator port {@code initiatorPort} ("0x" and 32 hex
     * digits), with registered buffers for {@code commands} commands in flight of up to
     * {@code largestTransfer} bytes each.
     *
     * @param multiChannel join the nexus's other channels instead of ending them (see {@link SrpChannel#connect})
     */
    public static SrpSession open(SrpUrl url, String initiatorPort, Duration timeout, int commands,
                                  int largestTransfer, boolean multiChannel) throws IOException, CliFailure {
        SrpChannel channel;
        try {
            channel = SrpChannel.connect(url.host(), url.port(), SrpPortId.parse(initiatorPort), url.targetPort(),
                    multiChannel, timeout, commands, largestTransfer);
        } catch (SrpLoginRefused e) {
            throw new CliFailure(CliFailure.LOGIN_FAILED, "login failed: " + e.getMessage());
        }
        SrpSession session = new SrpSession(channel, url.lun());
        try {
            session.testUnitReadyClearingUnitAttention();
            return session;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The channel itself, for bench's load loop. */
    public SrpChannel channel() {
        return channel;
    }

    public int lun() {
        return lun;
    }

    @Override
    public ScsiResult execute(byte[] cdb, int readLength) throws IOException {
        return channel.execute(lun, cdb, readLength, null);
    }

    @Override
    public ScsiResult execute(byte[] cdb, byte[] writeData) throws IOException {
        return channel.execute(lun, cdb, 0, writeData);
    }

    @Override
    public void abort() {
        channel.close();
    }

    @Override
    public void close() {
        channel.logout();
    }
}
