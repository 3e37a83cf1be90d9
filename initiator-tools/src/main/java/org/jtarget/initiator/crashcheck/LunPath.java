package org.jtarget.initiator.crashcheck;

import org.jtarget.initiator.cli.ScsiUrl;

/**
 * One path to the logical unit crashcheck writes or verifies: a {@code --url} and the initiator
 * name used on it (an IQN, or for srp:// an SRP port name). Several {@code --url}s are paths to
 * the same LU, as multipath sees them (an HA pair's two nodes).
 *
 * @param number the path's place on the command line, from 1 (for messages)
 */
public record LunPath(int number, ScsiUrl url, String initiatorName) {

    /** {@code path N (URL)}, for messages; a CHAP secret stays hidden ({@link ScsiUrl}'s toString). */
    public String describe() {
        return "path " + number + " (" + url + ")";
    }
}
