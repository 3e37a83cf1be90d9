package org.jtarget.scsi.dispatch;

import org.jtarget.scsi.sense.SenseReason;

import java.io.IOException;

/**
 * One command's behaviour, in two phases (DESIGN 3 "Dispatch"): {@link #parse} validates the CDB
 * and fills the context (no I/O, on the event loop); {@link #execute} emulates the command or
 * does the store I/O (on the event loop, or on the LU's I/O executor for
 * {@link OpcodeEntry#MEDIUM_IO} commands with a blocking store).
 */
public interface CommandHandler {

    /**
     * Validates the CDB and fills {@link CommandContext}; sets {@code cmd.dataOutLength} for
     * commands that need data-out. Does no I/O.
     *
     * @return null if the command is accepted, else the reason to reject it with CHECK CONDITION
     *         (use {@link CommandContext#invalidCdbField} to point at the offending byte)
     */
    SenseReason parse(CommandContext ctx);

    /**
     * Executes the accepted command: sets {@code cmd.dataIn} for data-in commands, or
     * {@link CommandContext#fail} on error. Store failures propagate as IOException.
     */
    void execute(CommandContext ctx) throws IOException;

    /**
     * Executes the command at once on the event loop if that cannot block (a READ whose blocks the
     * store holds in memory), before the dispatcher would hand it to the LU's I/O executor.
     * Returns false, having changed nothing, when it did not; then {@link #execute} runs as usual.
     */
    default boolean executeNonBlocking(CommandContext ctx) {
        return false;
    }
}
