package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.PduDecodeError;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.jtarget.scsi.lun.LuStatistics;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TaskSequencerTest {

    @Test
    void readIsSplitAtInitiatorMrdslWithStatusInLastDataIn() {
        try (SessionFixture f = new SessionFixture(4096, 16384, 8192, 2, false)) {
            f.send(f.command(7, 1, true, false, 10000, null, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            assertThat(cmd.direction()).isEqualTo(DataDirection.READ);
            assertThat(cmd.opcode()).isEqualTo(0x28);
            assertThat(cmd.expectedDataTransferLength()).isEqualTo(10000);
            ByteBuf data = SessionFixture.bytes(10000, 3);
            cmd.dataIn(data);
            cmd.fabric().queueDataIn(cmd);

            List<IscsiPdu> out = f.sent();
            assertThat(out).hasSize(3).allMatch(p -> p.opcode() == Opcode.SCSI_DATA_IN);
            assertThat(out).extracting(IscsiPdu::dataSegmentLength).containsExactly(4096, 4096, 1808);
            assertThat(out).extracting(IscsiPdu::bufferOffset).containsExactly(0, 4096, 8192);
            assertThat(out).extracting(IscsiPdu::dataSn).containsExactly(0, 1, 2);
            assertThat(out.subList(0, 2)).extracting(IscsiPdu::statSn).containsOnly(0); // reserved without S
            assertThat(out.get(0).flags() & 0x81).isZero();
            IscsiPdu last = out.get(2);
            assertThat(last.flags()).isEqualTo(0x81); // F and S, no residual
            assertThat(last.byte3()).isEqualTo(ScsiStatus.GOOD);
            assertThat(last.statSn()).isEqualTo(100);
            assertThat(last.data().getByte(0)).isEqualTo((byte) (3 + 8192));
            assertThat(last.maxCmdSn()).isEqualTo(1 + SessionFixture.WINDOW); // slot already given back
            SessionFixture.release(out);
            assertThat(data.refCnt()).isZero();
        }
    }

    @Test
    void readLongerThanEdtlIsOverflowAndShorterIsUnderflow() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(f.command(1, 1, true, false, 1000, null, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.dataIn(SessionFixture.bytes(1500, 0));
            cmd.fabric().queueDataIn(cmd);
            List<IscsiPdu> out = f.sent();
            assertThat(out).hasSize(1);
            assertThat(out.getFirst().dataSegmentLength()).isEqualTo(1000);
            assertThat(out.getFirst().flags()).isEqualTo(0x80 | 0x01 | 0x04);
            assertThat(out.getFirst().residualCount()).isEqualTo(500);
            SessionFixture.release(out);

            f.send(f.command(2, 2, true, false, 1000, null, true));
            ScsiCommand cmd2 = f.core.submitted.get(1);
            cmd2.dataIn(SessionFixture.bytes(600, 0));
            cmd2.fabric().queueDataIn(cmd2);
            out = f.sent();
            assertThat(out.getFirst().flags()).isEqualTo(0x80 | 0x01 | 0x02);
            assertThat(out.getFirst().residualCount()).isEqualTo(400);
            SessionFixture.release(out);
        }
    }

    @Test
    void dataInBurstsEndWithFinalBitEveryMaxBurstLength() {
        try (SessionFixture f = new SessionFixture(4096, 8192, 8192, 1, false)) {
            f.send(f.command(1, 1, true, false, 20000, null, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.dataIn(SessionFixture.bytes(20000, 0));
            cmd.fabric().queueDataIn(cmd);
            List<IscsiPdu> out = f.sent();
            assertThat(out).extracting(p -> p.finalFlag()).containsExactly(false, true, false, true, true);
            SessionFixture.release(out);
        }
    }

    @Test
    void writeWithImmediateUnsolicitedAndSeveralOutstandingR2ts() {
        try (SessionFixture f = new SessionFixture(8192, 4096, 4096, 2, false)) {
            ByteBuf all = SessionFixture.bytes(16384, 0);
            f.send(f.command(9, 1, false, true, 16384, all.retainedSlice(0, 1000), false));
            ScsiCommand cmd = f.core.submitted.getFirst();
            // unsolicited Data-Out arrives before the core asks for the data
            f.send(f.dataOut(9, -1, 0, 1000, all.retainedSlice(1000, 3096), true));
            assertThat(f.sent()).isEmpty();
            cmd.dataOutLength(16384);
            cmd.fabric().writePending(cmd);

            List<IscsiPdu> r2ts = f.sent();
            assertThat(r2ts).hasSize(2).allMatch(p -> p.opcode() == Opcode.R2T);
            assertThat(r2ts).extracting(IscsiPdu::bufferOffset).containsExactly(4096, 8192);
            assertThat(r2ts).extracting(IscsiPdu::word44).containsExactly(4096, 4096);
            assertThat(r2ts).extracting(IscsiPdu::word36).containsExactly(0, 1);
            int ttt = r2ts.getFirst().targetTransferTag();
            assertThat(ttt).isNotEqualTo(-1);
            SessionFixture.release(r2ts);

            f.send(f.dataOut(9, ttt, 0, 4096, all.retainedSlice(4096, 2048), false));
            f.send(f.dataOut(9, ttt, 1, 6144, all.retainedSlice(6144, 2048), true));
            List<IscsiPdu> third = f.sent();
            assertThat(third).hasSize(1);
            assertThat(third.getFirst().bufferOffset()).isEqualTo(12288);
            assertThat(third.getFirst().word36()).isEqualTo(2);
            SessionFixture.release(third);
            f.send(f.dataOut(9, ttt, 0, 8192, all.retainedSlice(8192, 4096), true));
            assertThat(f.core.dataOutComplete).isEmpty();
            f.send(f.dataOut(9, ttt, 0, 12288, all.retainedSlice(12288, 4096), true));
            assertThat(f.core.dataOutComplete).containsExactly(cmd);
            assertThat(cmd.dataOut().readableBytes()).isEqualTo(16384);
            assertThat(io.netty.buffer.ByteBufUtil.equals(cmd.dataOut(), all)).isTrue();

            cmd.fabric().queueStatus(cmd);
            List<IscsiPdu> rsp = f.sent();
            assertThat(rsp).hasSize(1);
            assertThat(rsp.getFirst().opcode()).isEqualTo(Opcode.SCSI_RESPONSE);
            assertThat(rsp.getFirst().flags()).isEqualTo(0x80);
            assertThat(rsp.getFirst().word36()).isEqualTo(3); // ExpDataSN = R2Ts sent
            SessionFixture.release(rsp);
            all.release();
            assertThat(all.refCnt()).isZero();
        }
    }

    @Test
    void writeResidualsCompareCdbLengthWithEdtl() {
        try (SessionFixture f = new SessionFixture()) {
            ByteBuf data = SessionFixture.bytes(512, 0);
            f.send(f.command(1, 1, false, true, 512, data, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.dataOutLength(1024); // the CDB wants two blocks, EDTL allows one
            cmd.fabric().writePending(cmd);
            assertThat(f.core.dataOutComplete).containsExactly(cmd);
            cmd.fabric().queueStatus(cmd);
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.flags()).isEqualTo(0x80 | 0x04);
            assertThat(rsp.residualCount()).isEqualTo(512);
            rsp.release();

            f.send(f.command(2, 2, false, true, 1024, SessionFixture.bytes(1024, 0), true));
            ScsiCommand cmd2 = f.core.submitted.get(1);
            cmd2.dataOutLength(512);
            cmd2.fabric().writePending(cmd2);
            cmd2.fabric().queueStatus(cmd2);
            rsp = f.sent().getFirst();
            assertThat(rsp.flags()).isEqualTo(0x80 | 0x02);
            assertThat(rsp.residualCount()).isEqualTo(512);
            rsp.release();
        }
    }

    @Test
    void checkConditionCarriesSenseLengthAndBytes() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(f.command(1, 1, false, false, 0, null, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.checkCondition(new byte[] {0x70, 0, 5, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0, 0, 0, 0, 0}, 18);
            cmd.fabric().queueStatus(cmd);
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.byte3()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(rsp.data().readableBytes()).isEqualTo(20);
            assertThat(rsp.data().getUnsignedShort(0)).isEqualTo(18);
            assertThat(rsp.data().getByte(2)).isEqualTo((byte) 0x70);
            rsp.release();
        }
    }

    @Test
    void dataOutWithWrongDataSnIsRejectedAndAbortsOnlyThatTask() {
        try (SessionFixture f = new SessionFixture(8192, 4096, 4096, 1, true)) {
            f.send(f.command(3, 1, false, true, 4096, null, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.dataOutLength(4096);
            cmd.fabric().writePending(cmd);
            IscsiPdu r2t = f.sent().getFirst();
            ByteBuf payload = SessionFixture.bytes(1024, 0);
            f.send(f.dataOut(3, r2t.targetTransferTag(), 5, 0, payload, false));
            r2t.release();
            List<IscsiPdu> out = f.sent();
            assertThat(out).extracting(IscsiPdu::opcode).containsExactly(Opcode.REJECT);
            assertThat(out.getFirst().byte2()).isEqualTo(0x04);
            SessionFixture.release(out);
            assertThat(f.channel.isOpen()).isTrue();
            assertThat(f.core.dataOutComplete).containsExactly(cmd);
            assertThat(payload.refCnt()).isZero();
        }
    }

    /** What the decoder emits for a Data-Out whose DataDigest failed: the header, the payload gone. */
    private static PduDecodeError lostToDataDigest(SessionFixture f, int itt, int ttt, int dataSn, int offset,
                                                   int length, boolean fin) {
        IscsiPdu pdu = f.dataOut(itt, ttt, dataSn, offset, SessionFixture.bytes(length, 0x55), fin);
        ByteBuf header = pdu.bhs().copy();
        pdu.release();
        return new PduDecodeError(RejectReason.DATA_DIGEST_ERROR, false, header, "data digest error");
    }

    private static void assertCrcErrorResponse(IscsiPdu rsp, int itt) {
        assertThat(rsp.opcode()).isEqualTo(Opcode.SCSI_RESPONSE);
        assertThat(rsp.initiatorTaskTag()).isEqualTo(itt);
        assertThat(rsp.byte2()).as("iSCSI response: completed at target").isZero();
        assertThat(rsp.byte3()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        ByteBuf sense = rsp.data();
        assertThat(sense.getUnsignedShort(0)).as("SenseLength").isEqualTo(18);
        assertThat(sense.getByte(2 + 2) & 0x0f).as("sense key ABORTED COMMAND").isEqualTo(0x0b);
        assertThat((int) sense.getUnsignedByte(2 + 12)).as("ASC").isEqualTo(0x47);
        assertThat((int) sense.getUnsignedByte(2 + 13)).as("ASCQ: PROTOCOL SERVICE CRC ERROR").isEqualTo(0x05);
    }

    @Test
    void lastDataOutLostToADataDigestErrorEndsTheTaskWithProtocolServiceCrcError() {
        try (SessionFixture f = new SessionFixture(8192, 8192, 8192, 1, true)) {
            f.send(f.command(5, 1, false, true, 8192, null, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.dataOutLength(8192);
            cmd.fabric().writePending(cmd);
            IscsiPdu r2t = f.sent().getFirst();
            int ttt = r2t.targetTransferTag();
            r2t.release();
            ByteBuf good = SessionFixture.bytes(4096, 0);
            f.send(f.dataOut(5, ttt, 0, 0, good, false));
            assertThat(f.sent()).isEmpty();

            f.send(lostToDataDigest(f, 5, ttt, 1, 4096, 4096, true));

            List<IscsiPdu> out = f.sent();
            assertThat(out).extracting(IscsiPdu::opcode).containsExactly(Opcode.REJECT, Opcode.SCSI_RESPONSE);
            assertThat(out.getFirst().byte2()).isEqualTo(RejectReason.DATA_DIGEST_ERROR);
            assertCrcErrorResponse(out.get(1), 5);
            SessionFixture.release(out);
            assertThat(f.core.dataOutComplete).containsExactly(cmd);
            assertThat(good.refCnt()).as("the good half was released with the task").isZero();
            assertThat(f.channel.isOpen()).isTrue();
            assertThat(f.session().window().maxCmdSn() - f.session().window().expCmdSn() + 1)
                    .as("the task's window slot is back").isEqualTo(SessionFixture.WINDOW);
        }
    }

    @Test
    void afterADataDigestErrorTheOutstandingSequenceEndsButNoNewR2tIsSent() {
        try (SessionFixture f = new SessionFixture(8192, 4096, 4096, 1, true)) {
            f.send(f.command(6, 1, false, true, 12288, null, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.dataOutLength(12288);
            cmd.fabric().writePending(cmd);
            IscsiPdu r2t = f.sent().getFirst();
            int ttt = r2t.targetTransferTag();
            r2t.release();

            f.send(lostToDataDigest(f, 6, ttt, 0, 0, 2048, false));
            List<IscsiPdu> out = f.sent();
            assertThat(out).extracting(IscsiPdu::opcode).containsExactly(Opcode.REJECT);
            SessionFixture.release(out);
            assertThat(f.core.dataOutComplete).as("waits for the rest of the outstanding R2T").isEmpty();

            ByteBuf rest = SessionFixture.bytes(2048, 0);
            f.send(f.dataOut(6, ttt, 1, 2048, rest, true));
            out = f.sent();
            assertThat(out).as("no R2T for offset 4096: the response instead").hasSize(1);
            assertCrcErrorResponse(out.getFirst(), 6);
            assertThat(out.getFirst().residualCount()).isZero();
            SessionFixture.release(out);
            assertThat(rest.refCnt()).isZero();

            ByteBuf late = SessionFixture.bytes(16, 0);
            f.send(f.dataOut(6, ttt, 0, 4096, late, true));
            assertThat(f.sent()).as("later Data-Out of the ended task is dropped").isEmpty();
            assertThat(late.refCnt()).isZero();
        }
    }

    @Test
    void dataDigestErrorOnADataOutOfNoTaskOnlyRejects() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(lostToDataDigest(f, 0x77, 3, 0, 0, 512, true));
            List<IscsiPdu> out = f.sent();
            assertThat(out).extracting(IscsiPdu::opcode).containsExactly(Opcode.REJECT);
            assertThat(out.getFirst().byte2()).isEqualTo(RejectReason.DATA_DIGEST_ERROR);
            SessionFixture.release(out);
            assertThat(f.channel.isOpen()).isTrue();
        }
    }

    @Test
    void connectionLossMidWriteAbortsTheTaskAndReleasesEverything() {
        SessionFixture f = new SessionFixture(8192, 4096, 4096, 1, false);
        ByteBuf immediate = SessionFixture.bytes(2048, 0);
        ByteBuf unsolicited = SessionFixture.bytes(1024, 0);
        f.send(f.command(4, 1, false, true, 65536, immediate, false));
        f.send(f.dataOut(4, -1, 0, 2048, unsolicited, true));
        ScsiCommand cmd = f.core.submitted.getFirst();
        cmd.dataOutLength(65536);
        cmd.fabric().writePending(cmd);
        SessionFixture.release(f.sent());
        f.channel.close();
        assertThat(f.core.dataOutComplete).containsExactly(cmd);
        assertThat(immediate.refCnt()).isZero();
        assertThat(unsolicited.refCnt()).isZero();
        assertThat(f.core.loggedOut).hasSize(1);
        assertThat(f.registry.sessions()).isEmpty();
        f.close();
    }

    @Test
    void immediateDataWhenTooLongIsRejected() {
        try (SessionFixture f = new SessionFixture(8192, 4096, 1024, 1, false)) {
            ByteBuf data = SessionFixture.bytes(2048, 0);
            f.send(f.command(4, 1, false, true, 4096, data, true));
            assertThat(f.core.submitted).isEmpty();
            List<IscsiPdu> out = f.sent();
            assertThat(out).extracting(IscsiPdu::opcode).containsExactly(Opcode.REJECT);
            SessionFixture.release(out);
            assertThat(data.refCnt()).isZero();
        }
    }

    @Test
    void extendedCdbAhsIsAppendedToTheCdb() {
        try (SessionFixture f = new SessionFixture()) {
            IscsiPdu base = f.command(1, 1, false, false, 0, null, true);
            ByteBuf ahs = io.netty.buffer.Unpooled.buffer(20);
            ahs.writeShort(17).writeByte(1).writeByte(0);
            for (int i = 0; i < 16; i++) {
                ahs.writeByte(0x80 + i);
            }
            IscsiPdu pdu = new IscsiPdu(base.bhs().retain(), ahs, io.netty.buffer.Unpooled.EMPTY_BUFFER);
            base.release();
            pdu.totalAhsLength(5);
            f.send(pdu);
            ScsiCommand cmd = f.core.submitted.getFirst();
            assertThat(cmd.cdbLength()).isEqualTo(32);
            assertThat(cmd.cdb()[16]).isEqualTo((byte) 0x80);
            assertThat(cmd.cdb()[31]).isEqualTo((byte) 0x8f);
        }
    }

    @Test
    void eachStatusSentCountsForTheSessionAndItsPortal() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(f.command(1, 1, true, false, 1000, null, true));
            ScsiCommand read = f.core.submitted.getFirst();
            read.dataIn(SessionFixture.bytes(1500, 0)); // more than the EDTL: 1000 bytes cross the wire
            read.fabric().queueDataIn(read);
            f.send(f.command(2, 2, false, true, 512, SessionFixture.bytes(512, 0), true));
            ScsiCommand write = f.core.submitted.get(1);
            write.dataOutLength(512);
            write.fabric().writePending(write);
            write.fabric().queueStatus(write);
            f.send(f.command(3, 3, false, false, 0, null, true));
            ScsiCommand failed = f.core.submitted.get(2);
            failed.checkCondition(new byte[] {0x70, 0, 5, 0, 0, 0, 0, 10}, 8);
            failed.fabric().queueStatus(failed);
            SessionFixture.release(f.sent());

            for (TransferCounters c : List.of(f.session().counters(), f.registry.portalTraffic().getFirst().counters())) {
                assertThat(c.commands(LuStatistics.Op.READ)).isEqualTo(1);
                assertThat(c.commands(LuStatistics.Op.WRITE)).isEqualTo(1);
                assertThat(c.commands(LuStatistics.Op.OTHER)).isEqualTo(1);
                assertThat(c.bytes(LuStatistics.Op.READ)).isEqualTo(1000);
                assertThat(c.bytes(LuStatistics.Op.WRITE)).isEqualTo(512);
                assertThat(c.failed()).isEqualTo(1);
            }
            assertThat(f.registry.portalTraffic()).extracting(SessionRegistry.PortalTraffic::portal,
                    SessionRegistry.PortalTraffic::transport).containsExactly(org.assertj.core.groups.Tuple.tuple("p", "tcp"));
            assertThat(f.registry.sessionTraffic()).singleElement().satisfies(s -> {
                assertThat(s.tsih()).isEqualTo(f.session().tsih());
                assertThat(s.portal()).isEqualTo("p");
                assertThat(s.counters()).isSameAs(f.session().counters());
            });
        }
    }
}
