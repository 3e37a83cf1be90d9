package org.jtarget.initiator.cli;

import static org.jtarget.initiator.cli.UrlAuthority.bad;

import java.util.HexFormat;
import org.jtarget.fabric.srp.iu.SrpPortId;

/**
 * A logical unit behind an SRP target port (T10 SRP r16a over the emulated iwarp provider):
 * {@code srp://host[:port]/TARGET_PORT_ID/lun}. TARGET_PORT_ID is "0x" and 32 hex digits, either
 * case: the target's {@code id_ext} then its {@code ioc_guid}, as {@link SrpPortId#name()} writes
 * it and the daemon's {@code srp:} setting makes it. SRP has no well-known port over iWARP (IANA
 * lists none; InfiniBand finds targets by GUID), so the port defaults to {@link #DEFAULT_PORT}.
 * An IPv6 host is written in brackets; SRP has no authentication, so no credentials.
 */
public record SrpUrl(String host, int port, SrpPortId targetPort, int lun) implements ScsiUrl {

    public static final String SCHEME = "srp://";
    /** Our choice for the port of an SRP portal when the URL names none. */
    public static final int DEFAULT_PORT = 5555;
    private static final String FORM = "srp://host[:port]/0x<32 hex digits>/lun";
    private static final String PORT_ID_PREFIX = "0x";
    private static final int PORT_ID_DIGITS = 32;
    private static final int MAX_LUN = 16383; // SAM-5 4.7.3 flat/peripheral addressing limit, as for iSCSI URLs

    /** Parses a URL starting with {@link #SCHEME}. */
    public static SrpUrl parse(String url) throws CliFailure {
        UrlAuthority.WithPath parts = UrlAuthority.withPath(url, SCHEME, DEFAULT_PORT, FORM,
                "SRP has no authentication: the URL takes no credentials");
        String path = parts.path();
        int lunSlash = path.indexOf('/');
        if (lunSlash < 0 || path.indexOf('/', lunSlash + 1) >= 0) {
            throw bad(url, "expected " + FORM);
        }
        return new SrpUrl(parts.authority().host(), parts.authority().port(), portId(url, path.substring(0, lunSlash)),
                lun(url, path.substring(lunSlash + 1)));
    }

    /** "0x" and exactly 32 hex digits, either case (the prefix is required: it says which form this is). */
    static SrpPortId portId(String url, String text) throws CliFailure {
        if (!isPortName(text)) {
            throw bad(url, "the target port identifier must be 0x and 32 hex digits (id_ext then ioc_guid), not '"
                    + text + "'");
        }
        return SrpPortId.parse(text);
    }

    /** Whether {@code text} is an SRP port name: "0x" (either case) and 32 hex digits. */
    public static boolean isPortName(String text) {
        return text.length() == PORT_ID_PREFIX.length() + PORT_ID_DIGITS
                && text.regionMatches(true, 0, PORT_ID_PREFIX, 0, PORT_ID_PREFIX.length())
                && text.chars().skip(PORT_ID_PREFIX.length()).allMatch(HexFormat::isHexDigit);
    }

    private static int lun(String url, String text) throws CliFailure {
        try {
            int lun = Integer.parseInt(text);
            if (lun >= 0 && lun <= MAX_LUN) {
                return lun;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw bad(url, "the LUN must be a number 0.." + MAX_LUN);
    }

    @Override
    public String toString() {
        return SCHEME + new UrlAuthority(host, port) + "/" + targetPort.name() + "/" + lun;
    }
}
