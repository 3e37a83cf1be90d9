package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.stream.Stream;
import org.jtarget.fabric.srp.iu.SrpPortId;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.srp.SrpChannel;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The fabrics a SCSI command test reaches the daemon through: iSCSI over TCP, iSCSI over iSER, and
 * SRP (T10 SRP r16a), the last two over the iwarp provider. The daemon serves one target on a TCP,
 * an iSER and an SRP portal ({@link DaemonExtension#withRdmaPortals()}); the test runs the same
 * commands and assertions through a {@link ScsiClient} of each. {@link Transport} stays for the
 * tests that speak iSCSI itself (login, PDUs, the CLI's iSCSI URLs).
 */
enum ScsiTransport {
    TCP,
    ISER,
    SRP;

    /** The largest transfer of one command over an RDMA fabric's client: its one data slot. */
    static final int SLOT_BYTES = 1 << 20;

    /**
     * Logs in to {@link DaemonConfig#IQN} on {@code daemon}'s portal of this fabric as
     * {@code initiatorName} (over SRP as the initiator port {@link #srpPort} makes of it).
     */
    ScsiClient login(DaemonExtension daemon, String initiatorName, Duration timeout) throws IOException {
        return login(daemon.port(this), initiatorName, timeout);
    }

    /**
     * Logs in to {@link DaemonConfig#IQN} (over SRP: {@link DaemonConfig#SRP_TARGET_PORT}) on this
     * fabric's portal on {@code port} as {@code initiatorName} (over SRP as the initiator port
     * {@link #srpPort} makes of it).
     */
    ScsiClient login(int port, String initiatorName, Duration timeout) throws IOException {
        return login(port, initiatorName, DaemonConfig.IQN, DaemonConfig.SRP_TARGET_PORT, timeout);
    }

    /**
     * Logs in to the target {@code iqn} (over SRP: the target port named {@code srpTargetPort}, its
     * {@link DaemonConfig#srpSetting}) on this fabric's portal on {@code port} as {@code
     * initiatorName} (over SRP as the initiator port {@link #srpPort} makes of it).
     *
     * @throws org.jtarget.initiator.srp.SrpLoginRefused over SRP, when the target answers SRP_LOGIN_REJ
     *                                                   (over iSCSI a refused login fails the test)
     */
    ScsiClient login(int port, String initiatorName, String iqn, String srpTargetPort, Duration timeout)
            throws IOException {
        if (this == SRP) {
            SrpChannel channel = SrpChannel.connect(DaemonProcess.HOST, port, srpPort(initiatorName),
                    SrpPortId.parse(srpTargetPort), false, timeout, 1, SLOT_BYTES);
            return ScsiClient.of(channel);
        }
        RawIscsiClient session = iscsi().connect(port, timeout);
        LoginResult login = session.login(initiatorName, iqn);
        assertThat(login.succeeded()).as("login over " + this + " to " + iqn + ": " + login).isTrue();
        return ScsiClient.of(session);
    }

    /** The iSCSI transport of {@link #TCP} or {@link #ISER}, for what speaks iSCSI itself (a login to be refused). */
    Transport iscsi() {
        return switch (this) {
            case TCP -> Transport.TCP;
            case ISER -> Transport.ISER;
            case SRP -> throw new IllegalStateException("SRP is not iSCSI");
        };
    }

    /**
     * The URL {@code jtarget-initiator} takes for LUN {@code lun} of {@link DaemonConfig#IQN} on
     * {@code daemon}'s portal of this fabric: iscsi://, iser:// or srp:// (the target's SRP port).
     */
    String url(DaemonExtension daemon, int lun) {
        return switch (this) {
            case TCP -> Transport.TCP.url(daemon.port(Transport.TCP), DaemonConfig.IQN, lun);
            case ISER -> Transport.ISER.url(daemon.port(Transport.ISER), DaemonConfig.IQN, lun);
            case SRP -> DaemonConfig.srpUrl(daemon.srpPort(), lun);
        };
    }

    /**
     * The SRP initiator port standing for an iSCSI initiator name: extension 0, then the first 8
     * bytes of the name's SHA-256 (distinct names are distinct I_T nexuses, as over iSCSI).
     */
    static SrpPortId srpPort(String initiatorName) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(initiatorName.getBytes(StandardCharsets.UTF_8));
            return SrpPortId.parse("0x" + "0".repeat(16) + HexFormat.of().formatHex(h, 0, 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every fabric followed by each of {@code cases}' arguments: [tcp, a, b], ..., [srp, a, b], .... */
    static Stream<Arguments> crossedWith(Stream<Arguments> cases) {
        return Crossed.with(values(), cases);
    }

    /** {@code tcp}, {@code iser} or {@code srp}: what a test name shows. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
