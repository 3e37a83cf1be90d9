package org.jtarget.initiator.rping;

import org.jtarget.initiator.cli.CliFailure;

/**
 * The connection went down while a side waited (its work requests were flushed): the end of a
 * server's session when it happens between pings, a failure anywhere else.
 */
final class ConnectionClosed extends CliFailure {

    ConnectionClosed(String message) {
        super(IO_ERROR, message);
    }
}
