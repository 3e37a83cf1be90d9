package org.jtarget.fabric.srp;

import org.jtarget.scsi.spi.TargetCore;

import java.util.function.Predicate;

/**
 * A target as an SRP target port serves it: its SCSI name, its core and who may log in.
 *
 * @param name     the target's SCSI name (for log lines)
 * @param core     its SCSI core
 * @param admitted whether an initiator port (its name, "0x" and 32 hex digits) passes the target's ACL
 */
public record SrpTarget(String name, TargetCore core, Predicate<String> admitted) {
}
