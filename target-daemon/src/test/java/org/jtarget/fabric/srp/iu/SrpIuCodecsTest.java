package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.fabric.srp.iu.SrpTestSupport.buffer;
import static org.jtarget.fabric.srp.iu.SrpTestSupport.malformed;
import static org.jtarget.fabric.srp.iu.SrpTestSupport.ok;

/**
 * SRP's other information units (SRP r16a: SRP_TSK_MGMT, SRP_RSP, the logouts, the credit and
 * asynchronous event exchanges) against bytes written out by hand.
 */
class SrpIuCodecsTest {

    /** An ABORT TASK of the command tagged 0xa5, as Linux's ib_srp sends it (tag with its TMF bit). */
    private static final String ABORT_TASK = "01" + "00" + "000000000000" + "80000000000000a6" + "00000000"
            + "0001000000000000" + "0000" + "01" + "00" + "00000000000000a5" + "0000000000000000";

    /** Fixed sense data: NOT READY, LOGICAL UNIT NOT READY, CAUSE NOT REPORTABLE. */
    private static final byte[] SENSE = ByteBufUtil.decodeHexDump("70000200000000" + "0a" + "00000000" + "0400"
            + "00000000");

    @Test
    void taskManagementDecodesAndMapsItsFunction() {
        SrpTaskManagement tmf = ok(SrpTaskManagement.decode(buffer(ABORT_TASK), 0, 48));
        assertThat(tmf).isEqualTo(new SrpTaskManagement(0, 0x80000000000000a6L, 0x0001000000000000L,
                SrpTaskManagement.ABORT_TASK, 0xa5));
        assertThat(tmf.function()).isEqualTo(TmfRequest.Function.ABORT_TASK);
        ByteBuf out = Unpooled.buffer();
        tmf.encode(out);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo(ABORT_TASK);
    }

    @Test
    void everyTaskManagementCodeMapsToTheCoresFunctionOrNull() {
        assertThat(function(SrpTaskManagement.ABORT_TASK_SET)).isEqualTo(TmfRequest.Function.ABORT_TASK_SET);
        assertThat(function(SrpTaskManagement.CLEAR_TASK_SET)).isEqualTo(TmfRequest.Function.CLEAR_TASK_SET);
        assertThat(function(SrpTaskManagement.LOGICAL_UNIT_RESET)).isEqualTo(TmfRequest.Function.LOGICAL_UNIT_RESET);
        assertThat(function(SrpTaskManagement.CLEAR_ACA)).isEqualTo(TmfRequest.Function.CLEAR_ACA);
        assertThat(function(0x20)).isNull();
        assertThat(function(0)).isNull();
    }

    private static TmfRequest.Function function(int code) {
        return new SrpTaskManagement(0, 0, 0, code, 0).function();
    }

    @Test
    void taskManagementTooShortOrOfAnotherOpcodeIsMalformed() {
        assertThat(malformed(SrpTaskManagement.decode(buffer(ABORT_TASK), 0, 47))).contains("47 bytes");
        assertThat(malformed(SrpTaskManagement.decode(buffer(ABORT_TASK), 4, 48))).contains("beyond");
        assertThat(malformed(SrpTaskManagement.decode(buffer("02" + ABORT_TASK.substring(2)), 0, 48)))
                .contains("SRP_CMD where SRP_TSK_MGMT");
    }

    @Test
    void commandResponseWithSenseAndResidualEncodesAtTheWriterIndex() {
        ByteBuf out = Unpooled.buffer();
        out.writeInt(0xdeadbeef);
        SrpResponse.encode(out, 0, 1, 0xa5, 0x02, SrpResponse.DIUNDER | SrpResponse.RSPVALID, 0, 512, SENSE,
                SENSE.length);
        assertThat(ByteBufUtil.hexDump(out, 4, 36)).isEqualTo("c1" + "00" + "0000" + "00000001"
                + "00000000000000a5" + "0000" + "22" + "02" + "00000000" + "00000200" + "00000012" + "00000000");
        assertThat(out.readableBytes()).isEqualTo(4 + 36 + 18);
        SrpResponse rsp = ok(SrpResponse.decode(out, 4, 54));
        assertThat(rsp.tag()).isEqualTo(0xa5);
        assertThat(rsp.requestLimitDelta()).isEqualTo(1);
        assertThat(rsp.status()).isEqualTo(0x02);
        assertThat(rsp.flags()).isEqualTo(SrpResponse.SNSVALID | SrpResponse.DIUNDER); // RSPVALID is not ours to set
        assertThat(rsp.dataInResidual()).isEqualTo(512);
        assertThat(rsp.responseCode()).isEqualTo(-1);
        assertThat(rsp.sense()).isEqualTo(SENSE);
    }

    @Test
    void goodResponseWithoutSenseIs36Bytes() {
        ByteBuf out = Unpooled.buffer();
        SrpResponse.encode(out, 1, 0, -2L, 0, 0, 0, 0, SENSE, 0);
        assertThat(out.readableBytes()).isEqualTo(SrpIu.RSP_MIN_LENGTH);
        SrpResponse rsp = ok(SrpResponse.decode(out, 0, 36));
        assertThat(rsp).extracting(SrpResponse::solNot, SrpResponse::tag, SrpResponse::flags, SrpResponse::status)
                .containsExactly(1, -2L, 0, 0);
        assertThat(rsp.sense()).isEmpty();
    }

    @Test
    void taskManagementResponseCarriesItsCodeInFourBytesOfResponseData() {
        ByteBuf out = Unpooled.buffer();
        SrpResponse.encodeTaskManagement(out, 0, 1, 0x80000000000000a6L, SrpResponse.TASK_MANAGEMENT_NOT_SUPPORTED);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("c1" + "00" + "0000" + "00000001" + "80000000000000a6"
                + "0000" + "01" + "00" + "00000000" + "00000000" + "00000000" + "00000004" + "00000004");
        SrpResponse rsp = ok(SrpResponse.decode(out, 0, 40));
        assertThat(rsp.responseCode()).isEqualTo(SrpResponse.TASK_MANAGEMENT_NOT_SUPPORTED);
        assertThat(rsp.sense()).isEmpty();
    }

    @Test
    void responseWithListsBeyondItsLengthIsMalformed() {
        ByteBuf out = Unpooled.buffer();
        SrpResponse.encode(out, 0, 0, 1, 2, 0, 0, 0, SENSE, SENSE.length);
        assertThat(malformed(SrpResponse.decode(out, 0, 53))).contains("18 of sense data");
        ByteBuf tmf = Unpooled.buffer();
        SrpResponse.encodeTaskManagement(tmf, 0, 0, 1, 0);
        assertThat(malformed(SrpResponse.decode(tmf, 0, 39))).contains("4 bytes of response data");
        tmf.setInt(32, 2); // RSPVALID with less than the four bytes holding RSP_CODE
        assertThat(malformed(SrpResponse.decode(tmf, 0, 40))).contains("2 bytes of response data");
        tmf.setInt(32, -1);
        assertThat(malformed(SrpResponse.decode(tmf, 0, 40))).contains("4294967295 bytes");
        assertThat(malformed(SrpResponse.decode(tmf, 0, 35))).contains("35 bytes");
    }

    @Test
    void targetLogoutRoundTrips() {
        SrpLogout.TargetLogout logout = new SrpLogout.TargetLogout(1, SrpLogout.INVALID_IU_TYPE, 7);
        ByteBuf out = Unpooled.buffer();
        logout.encode(out);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("80" + "01" + "0000" + "00000002" + "0000000000000007");
        assertThat(ok(SrpLogout.TargetLogout.decode(out, 0, 16))).isEqualTo(logout);
        assertThat(SrpLogout.describe(logout.reason())).contains("invalid information unit type");
    }

    @Test
    void initiatorLogoutRoundTripsAndIgnoresReservedBytes() {
        ByteBuf in = buffer("03" + "ffffffffffffff" + "0000000000000009");
        assertThat(ok(SrpLogout.InitiatorLogout.decode(in, 0, 16))).isEqualTo(new SrpLogout.InitiatorLogout(9));
        ByteBuf out = Unpooled.buffer();
        new SrpLogout.InitiatorLogout(9).encode(out);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("03" + "00000000000000" + "0000000000000009");
    }

    @Test
    void targetLogoutReasonsAreDescribedInWords() {
        assertThat(Map.of(SrpLogout.NO_REASON, "no reason specified", SrpLogout.INACTIVE_CHANNEL, "inactive",
                SrpLogout.UNEXPECTED_RESPONSE, "response", SrpLogout.MULTI_CHANNEL_ACTION, "MULTI-CHANNEL",
                SrpLogout.UNSUPPORTED_DATA_OUT_FORMAT, "data-out", SrpLogout.UNSUPPORTED_DATA_IN_FORMAT, "data-in",
                SrpLogout.INVALID_IU_LENGTH, "length", 5, "unknown reason 0x5"))
                .allSatisfy((reason, words) -> assertThat(SrpLogout.describe(reason)).contains(words));
    }

    @Test
    void creditRequestAndResponseRoundTrip() {
        SrpCredit.Request request = new SrpCredit.Request(0, 32, 0x40);
        ByteBuf out = Unpooled.buffer();
        request.encode(out);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("81" + "00" + "0000" + "00000020" + "0000000000000040");
        assertThat(ok(SrpCredit.Request.decode(out, 0, 16))).isEqualTo(request);

        ByteBuf answer = Unpooled.buffer();
        new SrpCredit.Response(0x40).encode(answer);
        assertThat(ByteBufUtil.hexDump(answer)).isEqualTo("41" + "00000000000000" + "0000000000000040");
        assertThat(ok(SrpCredit.Response.decode(answer, 0, 16))).isEqualTo(new SrpCredit.Response(0x40));
    }

    @Test
    void shortIusOfTheWrongLengthOrOpcodeAreMalformed() {
        ByteBuf credit = buffer("41" + "00000000000000" + "0000000000000040");
        assertThat(malformed(SrpCredit.Response.decode(credit, 0, 15))).contains("SRP_CRED_RSP of 15 bytes");
        assertThat(malformed(SrpCredit.Response.decode(credit, 0, 17))).contains("beyond");
        assertThat(malformed(SrpAsyncEvent.Response.decode(credit, 0, 16)))
                .isEqualTo("SRP_CRED_RSP where SRP_AER_RSP was expected");
        assertThat(malformed(SrpLogout.InitiatorLogout.decode(buffer("ee" + "00".repeat(15)), 0, 16)))
                .contains("unknown IU 0xee");
    }

    @Test
    void asyncEventRequestRoundTripsWithItsSense() {
        ByteBuf out = Unpooled.buffer();
        SrpAsyncEvent.encodeRequest(out, 1, 2, 0x99, 0x0001000000000000L, SENSE, SENSE.length);
        assertThat(ByteBufUtil.hexDump(out, 0, 36)).isEqualTo("82" + "01" + "0000" + "00000002" + "0000000000000099"
                + "00000000" + "0001000000000000" + "00000012" + "00000000");
        SrpAsyncEvent.Request aer = ok(SrpAsyncEvent.Request.decode(out, 0, 54));
        assertThat(aer).extracting(SrpAsyncEvent.Request::solNot, SrpAsyncEvent.Request::requestLimitDelta,
                SrpAsyncEvent.Request::tag, SrpAsyncEvent.Request::lunField)
                .containsExactly(1, 2, 0x99L, 0x0001000000000000L);
        assertThat(aer.sense()).isEqualTo(SENSE);
        assertThat(malformed(SrpAsyncEvent.Request.decode(out, 0, 53))).contains("18 bytes of sense data");

        ByteBuf answer = Unpooled.buffer();
        new SrpAsyncEvent.Response(0x99).encode(answer);
        assertThat(ok(SrpAsyncEvent.Response.decode(answer, 0, 16))).isEqualTo(new SrpAsyncEvent.Response(0x99));
        assertThat(answer.getUnsignedByte(0)).isEqualTo((short) SrpIu.AER_RSP);
    }

    @Test
    void opcodeLengthsAndNames() {
        ByteBuf in = buffer("00c1");
        assertThat(SrpIu.opcode(in, 1)).isEqualTo(SrpIu.RSP);
        assertThat(SrpIu.name(SrpIu.opcode(in, 0))).isEqualTo("SRP_LOGIN_REQ");
        int[] opcodes = {SrpIu.LOGIN_REQ, SrpIu.TSK_MGMT, SrpIu.CMD, SrpIu.I_LOGOUT, SrpIu.CRED_RSP, SrpIu.AER_RSP,
                SrpIu.LOGIN_RSP, SrpIu.RSP, SrpIu.LOGIN_REJ, SrpIu.T_LOGOUT, SrpIu.CRED_REQ, SrpIu.AER_REQ};
        int[] lengths = {56, 48, 48, 16, 16, 16, 52, 36, 32, 16, 16, 36};
        for (int i = 0; i < opcodes.length; i++) {
            assertThat(SrpIu.minimumLength(opcodes[i])).isEqualTo(lengths[i]);
            assertThat(SrpIu.name(opcodes[i])).startsWith("SRP_");
        }
        assertThat(SrpIu.minimumLength(0x04)).isEqualTo(-1);
        assertThat(SrpIu.name(0x04)).isEqualTo("unknown IU 0x4");
    }
}
