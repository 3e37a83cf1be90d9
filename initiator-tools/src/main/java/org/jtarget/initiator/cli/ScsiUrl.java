package org.jtarget.initiator.cli;

import static org.jtarget.initiator.cli.UrlAuthority.bad;

/**
 * The URL of a logical unit, whichever transport reaches it: an iSCSI session over TCP or iSER
 * ({@link IscsiUrl}, {@code iscsi://} and {@code iser://}) or an SRP RDMA channel ({@link SrpUrl},
 * {@code srp://}). The commands that only run SCSI commands on the LU take any of them.
 */
public sealed interface ScsiUrl permits IscsiUrl, SrpUrl {

    String host();

    int port();

    /** The logical unit number. */
    int lun();

    /** Parses the URL of a logical unit (not a discovery URL) by its scheme. */
    static ScsiUrl parse(String url) throws CliFailure {
        if (url != null && url.startsWith(SrpUrl.SCHEME)) {
            return SrpUrl.parse(url);
        }
        if (!IscsiUrl.hasScheme(url)) {
            throw bad(url, "must start with " + IscsiUrl.SCHEME + ", " + IscsiUrl.ISER_SCHEME + " or " + SrpUrl.SCHEME);
        }
        return IscsiUrl.parse(url, false);
    }
}
