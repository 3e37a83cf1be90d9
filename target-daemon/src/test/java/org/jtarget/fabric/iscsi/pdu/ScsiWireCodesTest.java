package org.jtarget.fabric.iscsi.pdu;

import org.jtarget.scsi.spi.TaskAttribute;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ScsiWireCodesTest {

    @Test
    void attrFieldMapsToSamTaskAttributes() {
        assertThat(ScsiWireCodes.taskAttribute(0)).isEqualTo(TaskAttribute.SIMPLE); // untagged
        assertThat(ScsiWireCodes.taskAttribute(1)).isEqualTo(TaskAttribute.SIMPLE);
        assertThat(ScsiWireCodes.taskAttribute(2)).isEqualTo(TaskAttribute.ORDERED);
        assertThat(ScsiWireCodes.taskAttribute(3)).isEqualTo(TaskAttribute.HEAD_OF_QUEUE);
        assertThat(ScsiWireCodes.taskAttribute(4)).isEqualTo(TaskAttribute.ACA);
        assertThat(ScsiWireCodes.taskAttribute(7)).isEqualTo(TaskAttribute.SIMPLE);
    }

    @Test
    void tmfFunctionCodesFollowRfc7143() {
        assertThat(ScsiWireCodes.tmfFunction(0)).isNull();
        assertThat(ScsiWireCodes.tmfFunction(1)).isEqualTo(TmfRequest.Function.ABORT_TASK);
        assertThat(ScsiWireCodes.tmfFunction(5)).isEqualTo(TmfRequest.Function.LOGICAL_UNIT_RESET);
        assertThat(ScsiWireCodes.tmfFunction(6)).isEqualTo(TmfRequest.Function.TARGET_WARM_RESET);
        assertThat(ScsiWireCodes.tmfFunction(8)).isEqualTo(TmfRequest.Function.TASK_REASSIGN);
        assertThat(ScsiWireCodes.tmfFunction(9)).isNull();
    }

    @Test
    void tmfResponseCodesFollowRfc7143() {
        assertThat(ScsiWireCodes.tmfResponse(TmfRequest.Response.FUNCTION_COMPLETE)).isZero();
        assertThat(ScsiWireCodes.tmfResponse(TmfRequest.Response.LUN_DOES_NOT_EXIST)).isEqualTo(2);
        assertThat(ScsiWireCodes.tmfResponse(TmfRequest.Response.FUNCTION_NOT_SUPPORTED)).isEqualTo(5);
        assertThat(ScsiWireCodes.tmfResponse(TmfRequest.Response.FUNCTION_REJECTED)).isEqualTo(255);
    }
}
