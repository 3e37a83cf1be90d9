package org.jtarget.initiator.srp;

import java.io.IOException;

/** The target sent an IU the SRP initiator cannot take (malformed, or not one a target sends). */
public class SrpProtocolException extends IOException {

    public SrpProtocolException(String message) {
        super(message);
    }
}
