/**
 * {@code jtarget-initiator crashcheck}: proves that a target never loses a write it acknowledged.
 *
 * <p>{@code crashcheck write} writes numbered, checksummed blocks ({@link org.jtarget.initiator.crashcheck.BlockImage})
 * one at a time (queue depth 1), cycling over a region of the LUN so blocks are overwritten over time. A block
 * counts as <em>acknowledged</em> only after the target returned GOOD for a WRITE with FUA=1 (mode {@code fua},
 * SBC-4 5.40/5.41: the data is on the medium before status) or for a plain WRITE followed by a SYNCHRONIZE
 * CACHE covering it (mode {@code sync}, SBC-4 5.22/5.23), or for a plain WRITE on a LUN whose caching mode
 * page reports WCE=0 (mode {@code none}, SBC-4 6.5.5: with the write cache off every write is stable before
 * GOOD; the writer checks WCE first and refuses to run with WCE=1). Each acknowledgement is then appended to the
 * journal ({@link org.jtarget.initiator.crashcheck.Journal}) and forced to disk before the next write is sent.
 *
 * <p>{@code crashcheck verify} reads every journaled LBA back after the target crashed and restarted, and
 * applies the rule of {@link org.jtarget.initiator.crashcheck.Expectations}: the newest acknowledged version
 * must be there, or the single write that was in flight (sent, not yet acknowledged) when the run ended.
 */
package org.jtarget.initiator.crashcheck;
