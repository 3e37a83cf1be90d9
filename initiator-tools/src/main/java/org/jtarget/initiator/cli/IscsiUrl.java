package org.jtarget.initiator.cli;

import static org.jtarget.initiator.cli.UrlAuthority.bad;

/**
 * An iSCSI URL in libiscsi's form: {@code iscsi://[user%secret@]host[:port]/target-iqn/lun} for
 * a logical unit, {@code iscsi://[user%secret@]host[:port]} for discovery. The port defaults to
 * 3260 (RFC 7143 13.x well-known port); an IPv6 host is written in brackets. The same URL with
 * {@code iser://} names the logical unit through an iSER portal (RFC 7145: the iSCSI session over
 * an RDMA connection of the iwarp provider), port 3260 by default as well.
 *
 * @param user   CHAP user name, or null for no authentication
 * @param secret CHAP secret, or null
 * @param target the target IQN, or null in a discovery URL
 * @param lun    the LUN, or -1 in a discovery URL
 * @param iser   whether the URL is an {@code iser://} one
 */
public record IscsiUrl(String user, String secret, String host, int port, String target, int lun, boolean iser)
        implements ScsiUrl {

    /** RFC 7143 (IANA): iSCSI's well-known TCP port. */
    public static final int DEFAULT_PORT = 3260;
    public static final String SCHEME = "iscsi://";
    public static final String ISER_SCHEME = "iser://";
    private static final int MAX_LUN = 16383; // SAM-5 4.7.3 flat/peripheral addressing limit we support

    /** An iscsi:// URL. */
    public IscsiUrl(String user, String secret, String host, int port, String target, int lun) {
        this(user, secret, host, port, target, lun, false);
    }

    /** Whether {@code url} starts with one of the two schemes. */
    public static boolean hasScheme(String url) {
        return url != null && (url.startsWith(SCHEME) || url.startsWith(ISER_SCHEME));
    }

    /** Parses a URL; {@code discovery} selects the portal-only form. */
    public static IscsiUrl parse(String url, boolean discovery) throws CliFailure {
        if (!hasScheme(url)) {
            throw bad(url, "must start with iscsi:// or iser://");
        }
        boolean iser = url.startsWith(ISER_SCHEME);
        String rest = url.substring(iser ? ISER_SCHEME.length() : SCHEME.length());
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash + 1);
        String user = null;
        String secret = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String cred = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int pct = cred.indexOf('%');
            if (pct <= 0 || pct == cred.length() - 1) {
                throw bad(url, "credentials must be user%secret@");
            }
            user = cred.substring(0, pct); // libiscsi does not percent-decode: the first '%' splits
            secret = cred.substring(pct + 1);
        }
        UrlAuthority hostPort = UrlAuthority.parse(url, authority, DEFAULT_PORT);
        if (discovery) {
            if (!path.isEmpty()) {
                throw bad(url, "discovery takes iscsi://host[:port] without a target");
            }
            return new IscsiUrl(user, secret, hostPort.host(), hostPort.port(), null, -1, iser);
        }
        return withTarget(url, user, secret, hostPort.host(), hostPort.port(), path, iser);
    }

    private static IscsiUrl withTarget(String url, String user, String secret, String host, int port, String path,
                                       boolean iser) throws CliFailure {
        int slash = path.lastIndexOf('/');
        if (slash <= 0 || slash == path.length() - 1) {
            throw bad(url, "expected iscsi://host[:port]/target-iqn/lun");
        }
        String target = path.substring(0, slash);
        if (target.contains("/")) {
            throw bad(url, "the target name may not contain '/'");
        }
        int lun;
        try {
            lun = Integer.parseInt(path.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw bad(url, "the LUN must be a number");
        }
        if (lun < 0 || lun > MAX_LUN) {
            throw bad(url, "the LUN must be 0.." + MAX_LUN);
        }
        return new IscsiUrl(user, secret, host, port, target, lun, iser);
    }

    /** Whether the URL carries CHAP credentials. */
    public boolean hasCredentials() {
        return user != null;
    }

    @Override
    public String toString() {
        String cred = user == null ? "" : user + "%***@";
        return (iser ? ISER_SCHEME : SCHEME) + cred + new UrlAuthority(host, port) + (target == null ? "" : "/" + target + "/" + lun);
    }
}
