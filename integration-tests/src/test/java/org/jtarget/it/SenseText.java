package org.jtarget.it;

import org.jtarget.initiator.raw.ScsiResult;

/** A command's outcome as tests compare it: {@code KEY/ASC/ASCQ} in hex, or the status when it is not CHECK CONDITION. */
final class SenseText {

    private SenseText() {
    }

    static String of(ScsiResult r) {
        if (r.status() != 0x02) {
            return "status " + r.status();
        }
        return String.format("%02X/%02X/%02X", r.senseKey(), r.additionalSenseCode(), r.additionalSenseCodeQualifier());
    }
}
