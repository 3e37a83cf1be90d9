package org.jtarget.initiator.raw;

import java.io.IOException;

/** The target broke the iSCSI protocol as the raw client understands it, or rejected a request. */
public class IscsiProtocolException extends IOException {

    public IscsiProtocolException(String message) {
        super(message);
    }
}
