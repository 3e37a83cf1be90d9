package org.jtarget.initiator.crashcheck;

import java.io.IOException;

/** The journal cannot be trusted: a damaged record before valid ones, or records that contradict each other. */
public class CorruptJournalException extends IOException {

    public CorruptJournalException(String message) {
        super(message);
    }
}
