package org.jtarget.fabric.iscsi.session;

import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.TargetCore;
import org.jtarget.scsi.spi.TmfRequest;

import java.util.ArrayList;
import java.util.List;

/** A SCSI core that records what the fabric hands it; the test plays the core's answers. */
final class FakeCore implements TargetCore {

    final List<ScsiCommand> submitted = new ArrayList<>();
    /** The tags of {@link #submitted} when they came (commands are pooled and reset when they end). */
    final List<Long> submittedTags = new ArrayList<>();
    final List<ScsiCommand> dataOutComplete = new ArrayList<>();
    final List<TmfRequest> tmfs = new ArrayList<>();
    final List<ITNexus> loggedIn = new ArrayList<>();
    final List<ITNexus> loggedOut = new ArrayList<>();
    /** When set, an aborted command handed back by dataOutComplete is ended at once. */
    boolean endAbortedAtOnce = true;

    @Override
    public void submit(ScsiCommand cmd) {
        submitted.add(cmd);
        submittedTags.add(cmd.tag());
    }

    @Override
    public void dataOutComplete(ScsiCommand cmd) {
        dataOutComplete.add(cmd);
        if (cmd.isAborted() && endAbortedAtOnce) {
            cmd.fabric().abortedTask(cmd);
        }
    }

    @Override
    public void submitTmf(TmfRequest tmf) {
        tmfs.add(tmf);
    }

    @Override
    public void nexusLoggedIn(ITNexus nexus) {
        loggedIn.add(nexus);
    }

    @Override
    public void nexusLoggedOut(ITNexus nexus) {
        loggedOut.add(nexus);
    }

    @Override
    public int[] lunNumbers() {
        return new int[] {0};
    }
}
