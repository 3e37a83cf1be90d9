package org.jtarget.scsi.lun;

import org.jtarget.scsi.sense.SenseReason;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MediumStateTest {

    private final MediumState medium = new MediumState();

    @Test
    void readyMediumHasNoAccessError() {
        assertThat(medium.accessError()).isNull();
        assertThat(medium.offline()).isFalse();
    }

    @Test
    void goingOfflineHappensOnceAndGivesNotReadyCauseNotReportable() {
        assertThat(medium.goOffline()).isTrue();
        assertThat(medium.goOffline()).isFalse();
        assertThat(medium.offline()).isTrue();
        assertThat(medium.accessError()).isEqualTo(SenseReason.NOT_READY_CAUSE_NOT_REPORTABLE);
    }

    @Test
    void offlineWinsOverEjectedAndSanitizeStatesAndLoadCannotUndoIt() {
        medium.eject();
        medium.goOffline();
        assertThat(medium.accessError()).isEqualTo(SenseReason.NOT_READY_CAUSE_NOT_REPORTABLE);
        medium.load();
        medium.exitFailureMode();
        assertThat(medium.accessError()).isEqualTo(SenseReason.NOT_READY_CAUSE_NOT_REPORTABLE);
    }
}
