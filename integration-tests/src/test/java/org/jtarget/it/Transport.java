package org.jtarget.it;

import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Stream;
import org.jtarget.initiator.iser.IserChannel;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.junit.jupiter.params.provider.Arguments;

/**
 * How a test reaches the daemon: iSCSI over TCP (RFC 7143) or over iSER (RFC 7145, the iwarp
 * provider), for tests that run the same SCSI commands and assertions over both. The daemon serves
 * one target on a TCP and an iSER portal ({@link DaemonConfig#withIserPortal}); our initiator's
 * session logic is the same over both, only its {@code PduChannel} differs.
 *
 * <p>Parametrize with {@code @EnumSource(Transport.class)} and a name starting {@code "[{0}] "}, or
 * {@link #crossedWith} when the test has parameters of its own.
 */
enum Transport {
    TCP("iscsi"),
    ISER("iser");

    /** The largest transfer of one command over an iSER connection of {@link #connect}: its data slot. */
    static final int ISER_SLOT_BYTES = 1 << 20;

    private final String scheme;

    Transport(String scheme) {
        this.scheme = scheme;
    }

    /** {@code iscsi://127.0.0.1:PORT} or {@code iser://127.0.0.1:PORT}: the portal on {@code port}. */
    String portalUrl(int port) {
        return scheme + "://" + DaemonProcess.HOST + ":" + port;
    }

    /** {@code iscsi://127.0.0.1:PORT/IQN/LUN} or {@code iser://...}, as {@code jtarget-initiator} takes it. */
    String url(int port, String iqn, int lun) {
        return portalUrl(port) + "/" + iqn + "/" + lun;
    }

    /**
     * A raw client connected to this transport's portal on {@code port} (not logged in); over iSER
     * with one data slot of {@link #ISER_SLOT_BYTES}, so one command at a time of at most 1 MiB.
     */
    RawIscsiClient connect(int port, Duration timeout) throws IOException {
        return this == TCP ? RawIscsiClient.connect(DaemonProcess.HOST, port, timeout)
                : RawIscsiClient.over(IserChannel.connect(DaemonProcess.HOST, port, timeout, 1, ISER_SLOT_BYTES));
    }

    /** Every transport followed by each of {@code cases}' arguments: [tcp, a, b], ..., [iser, a, b], .... */
    static Stream<Arguments> crossedWith(Stream<Arguments> cases) {
        return Crossed.with(values(), cases);
    }

    /** {@code tcp} or {@code iser}: what a test name shows. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
