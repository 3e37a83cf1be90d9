package org.jtarget.fabric.iscsi.pdu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Parsing of one whole PDU, as a message transport delivers it (no stream framing, no digests). */
class PduParserTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    /** A message: BHS, 8 bytes of AHS, 5 bytes of data padded to 8. */
    private static ByteBuf message() {
        ByteBuf m = Unpooled.directBuffer(IscsiPdu.BHS_LENGTH + 8 + 8);
        m.writeByte(Opcode.SCSI_COMMAND).writeByte(0x81).writeShort(0);
        m.writeByte(2).writeMedium(5); // TotalAHSLength 2 words, DataSegmentLength 5
        m.writeLong(0);
        m.writeInt(0x1234); // ITT
        m.writeZero(IscsiPdu.BHS_LENGTH - 20);
        m.writeBytes(new byte[] {0, 5, 1, 0, 9, 9, 9, 9}); // AHS
        m.writeBytes(new byte[] {1, 2, 3, 4, 5, 0, 0, 0}); // data + padding
        return m;
    }

    @Test
    void wholePduBecomesBhsCopyAndSlicesOfTheMessage() {
        ByteBuf m = message();
        IscsiPdu pdu = new PduParser(true).parse(ALLOC, m, 0, IscsiPdu.BHS_LENGTH + 8);
        try {
            assertThat(pdu.opcode()).isEqualTo(Opcode.SCSI_COMMAND);
            assertThat(pdu.initiatorTaskTag()).isEqualTo(0x1234);
            assertThat(pdu.bhs().readableBytes()).isEqualTo(IscsiPdu.BHS_LENGTH);
            assertThat(pdu.ahs().readableBytes()).isEqualTo(8);
            assertThat(pdu.data().readableBytes()).isEqualTo(5);
            assertThat(pdu.data().getByte(4)).isEqualTo((byte) 5);
            assertThat(pdu.dataRoot()).isSameAs(m); // a single buffer is recorded as the data's root
            assertThat(pdu.dataRootIndex()).isEqualTo(IscsiPdu.BHS_LENGTH + 8);
            m.setByte(IscsiPdu.BHS_LENGTH + 8, 42);
            assertThat(pdu.data().getByte(0)).isEqualTo((byte) 42); // not copied
            m.setInt(16, 0);
            assertThat(pdu.initiatorTaskTag()).isEqualTo(0x1234); // the BHS is
        } finally {
            pdu.release();
        }
        assertThat(m.refCnt()).isEqualTo(1);
        m.release();
    }

    @Test
    void eachSideAcceptsOnlyThePeersOpcodes() {
        PduParser target = new PduParser(true);
        PduParser initiator = new PduParser(false);
        assertThat(target.accepts(Opcode.SCSI_COMMAND)).isTrue();
        assertThat(target.accepts(Opcode.SNACK_REQUEST)).isTrue();
        assertThat(target.accepts(Opcode.SCSI_RESPONSE)).isFalse();
        assertThat(target.accepts(0x1c)).isFalse(); // vendor specific
        assertThat(initiator.accepts(Opcode.R2T)).isTrue();
        assertThat(initiator.accepts(Opcode.SCSI_COMMAND)).isFalse();
    }

    @Test
    void errorCarriesACopyOfTheHeader() {
        ByteBuf m = message();
        PduDecodeError error = PduParser.error(ALLOC, m, 0, RejectReason.COMMAND_NOT_SUPPORTED, false, "test");
        try {
            assertThat(error.header().readableBytes()).isEqualTo(IscsiPdu.BHS_LENGTH);
            assertThat(error.header().getInt(16)).isEqualTo(0x1234);
            assertThat(error.fatal()).isFalse();
        } finally {
            error.release();
            m.release();
        }
    }
}
