package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.srp.iu.SrpCommand.Direction;
import org.jtarget.fabric.srp.iu.SrpCommand.Outcome;
import org.jtarget.scsi.spi.TaskAttribute;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jtarget.fabric.srp.iu.SrpTestSupport.buffer;

/** SRP_CMD (SRP r16a, SRP-2 immediate data) decoded in place, against bytes written out by hand. */
class SrpCommandTest {

    private static final String TAG = "00000000000000a5";
    private static final String LUN = "0001000000000000";
    /** READ(10) of 8 blocks at LBA 0x1000, padded to the 16 CDB bytes. */
    private static final String READ_10 = "28000000100000000800" + "000000000000";
    /** WRITE(10) of 8 blocks at LBA 0x2000. */
    private static final String WRITE_10 = "2a000000200000000800" + "000000000000";
    /** A direct descriptor: address 0x7f1234560000, key 0x1234, 4096 bytes. */
    private static final String DIRECT_4K = "00007f1234560000" + "00001234" + "00001000";
    private static final int LINUX_IMMEDIATE_DATA_OFFSET = 68;

    private final SrpCommand cmd = new SrpCommand();

    /** The 48 bytes before the additional CDB: tag 0xa5, LUN 1, and the fields given. */
    private static String fixedPart(int formats, int outCount, int inCount, int taskAttribute,
                                    int additionalCdbLength, String cdb) {
        return "02" + "00" + "000000" + hex(formats) + hex(outCount) + hex(inCount) + TAG + "00000000" + LUN
                + "00" + hex(taskAttribute) + "00" + hex(additionalCdbLength) + cdb;
    }

    private static String hex(int b) {
        return String.format("%02x", b);
    }

    private static String zeros(int bytes) {
        return "00".repeat(bytes);
    }

    /** An indirect descriptor: table at 0xa00000 key 0x77 of {@code tableLength}, then {@code entries}. */
    private static String indirect(int tableLength, int totalLength, String entries) {
        return "0000000000a00000" + "00000077" + String.format("%08x", tableLength) + String.format("%08x", totalLength)
                + entries;
    }

    private static final String ENTRY_0 = "0000000000b00000" + "00000011" + "00001000";
    private static final String ENTRY_1 = "0000000000c00000" + "00000022" + "00002000";

    private Outcome decode(String hex) {
        ByteBuf buf = buffer(hex);
        return cmd.decode(buf, 0, buf.readableBytes());
    }

    @Test
    void readWithDirectDataInDescriptorAtAnIndex() {
        ByteBuf buf = buffer(zeros(8) + fixedPart(0x01, 0, 0, 0, 0, READ_10) + DIRECT_4K);
        assertThat(cmd.decode(buf, 8, 64)).isEqualTo(Outcome.OK);
        assertThat(cmd.tag()).isEqualTo(0xa5L);
        assertThat(cmd.lunField()).isEqualTo(0x0001000000000000L);
        assertThat(cmd.solNot()).isZero();
        assertThat(cmd.taskAttribute()).isEqualTo(TaskAttribute.SIMPLE);
        assertThat(cmd.cdbIndex()).isEqualTo(8 + 32);
        assertThat(cmd.cdbLength()).isEqualTo(16);
        assertThat(buf.getUnsignedByte(cmd.cdbIndex())).isEqualTo((short) 0x28);
        assertThat(cmd.format(Direction.DATA_OUT)).isEqualTo(SrpDescriptorFormat.NONE);
        assertThat(cmd.format(Direction.DATA_IN)).isEqualTo(SrpDescriptorFormat.DIRECT);
        assertThat(cmd.va(Direction.DATA_IN)).isEqualTo(0x7f1234560000L);
        assertThat(cmd.key(Direction.DATA_IN)).isEqualTo(0x1234);
        assertThat(cmd.length(Direction.DATA_IN)).isEqualTo(4096);
        assertThat(cmd.dataInLength()).isEqualTo(4096);
        assertThat(cmd.dataOutLength()).isZero();
        assertThat(cmd.reason()).isEqualTo("well formed");
    }

    @Test
    void writeWithImmediateDataAtTheNegotiatedOffset() {
        String data = "5a".repeat(4096);
        ByteBuf buf = buffer(fixedPart(0x30, 0, 0, 2, 0, WRITE_10) + "00001000" + zeros(16) + data);
        assertThat(buf.readableBytes()).isEqualTo(68 + 4096);
        assertThat(cmd.decode(buf, 0, buf.readableBytes(), LINUX_IMMEDIATE_DATA_OFFSET)).isEqualTo(Outcome.OK);
        assertThat(cmd.format(Direction.DATA_OUT)).isEqualTo(SrpDescriptorFormat.IMMEDIATE);
        assertThat(cmd.format(Direction.DATA_IN)).isEqualTo(SrpDescriptorFormat.NONE);
        assertThat(cmd.immediateLength()).isEqualTo(4096);
        assertThat(cmd.immediateDataIndex()).isEqualTo(68);
        assertThat(cmd.dataOutLength()).isEqualTo(4096);
        assertThat(cmd.taskAttribute()).isEqualTo(TaskAttribute.ORDERED);
        assertThat(buf.getUnsignedByte(cmd.immediateDataIndex())).isEqualTo((short) 0x5a);

        assertThat(cmd.decode(buf, 0, buf.readableBytes() - 1, LINUX_IMMEDIATE_DATA_OFFSET))
                .isEqualTo(Outcome.IMMEDIATE_DATA_BEYOND_IU);
        assertThat(cmd.reason()).contains("4164").contains("4163");
        assertThat(cmd.decode(buf, 0, buf.readableBytes())).isEqualTo(Outcome.IMMEDIATE_DATA_NOT_NEGOTIATED);
        assertThat(cmd.outcome().targetLogoutReason()).isEqualTo(SrpLogout.UNSUPPORTED_DATA_OUT_FORMAT);
    }

    @Test
    void immediateDataMayNotStartInsideTheDescriptors() {
        // 32 additional CDB bytes put the immediate descriptor at 80..84, past Linux's offset 68
        ByteBuf buf = buffer(fixedPart(0x30, 0, 0, 0, 0x20, WRITE_10) + zeros(32) + "00000010" + zeros(16));
        assertThat(cmd.decode(buf, 0, buf.readableBytes(), LINUX_IMMEDIATE_DATA_OFFSET))
                .isEqualTo(Outcome.IMMEDIATE_DATA_OVERLAPS_DESCRIPTORS);
        assertThat(cmd.reason()).contains("68").contains("84");
        assertThat(cmd.decode(buf, 0, buf.readableBytes(), 84)).isEqualTo(Outcome.OK);
        assertThat(cmd.immediateDataIndex()).isEqualTo(84);
    }

    @Test
    void indirectDataOutWithTwoEntriesInTheIu() {
        ByteBuf buf = buffer(fixedPart(0x20, 2, 0, 0, 0, WRITE_10) + indirect(32, 0x3000, ENTRY_0 + ENTRY_1));
        assertThat(cmd.decode(buf, 0, 100)).isEqualTo(Outcome.OK);
        assertThat(cmd.format(Direction.DATA_OUT)).isEqualTo(SrpDescriptorFormat.INDIRECT);
        assertThat(cmd.tableVa(Direction.DATA_OUT)).isEqualTo(0xa00000L);
        assertThat(cmd.tableKey(Direction.DATA_OUT)).isEqualTo(0x77);
        assertThat(cmd.tableLength(Direction.DATA_OUT)).isEqualTo(32);
        assertThat(cmd.totalLength(Direction.DATA_OUT)).isEqualTo(0x3000);
        assertThat(cmd.inIuCount(Direction.DATA_OUT)).isEqualTo(2);
        assertThat(cmd.tableComplete(Direction.DATA_OUT)).isTrue();
        assertThat(cmd.descriptorVa(Direction.DATA_OUT, 0)).isEqualTo(0xb00000L);
        assertThat(cmd.descriptorKey(Direction.DATA_OUT, 0)).isEqualTo(0x11);
        assertThat(cmd.descriptorLength(Direction.DATA_OUT, 0)).isEqualTo(0x1000);
        assertThat(cmd.descriptorVa(Direction.DATA_OUT, 1)).isEqualTo(0xc00000L);
        assertThat(cmd.descriptorKey(Direction.DATA_OUT, 1)).isEqualTo(0x22);
        assertThat(cmd.descriptorLength(Direction.DATA_OUT, 1)).isEqualTo(0x2000);
        assertThat(cmd.dataOutLength()).isEqualTo(0x3000);
        assertThatThrownBy(() -> cmd.descriptorVa(Direction.DATA_OUT, 2)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void indirectTableLongerThanTheIuListIsToBeFetched() {
        assertThat(decode(fixedPart(0x02, 0, 1, 0, 0, READ_10) + indirect(64, 0x7000, ENTRY_0)))
                .isEqualTo(Outcome.OK);
        assertThat(cmd.inIuCount(Direction.DATA_IN)).isEqualTo(1);
        assertThat(cmd.tableLength(Direction.DATA_IN)).isEqualTo(64);
        assertThat(cmd.tableComplete(Direction.DATA_IN)).isFalse();
        assertThat(cmd.dataInLength()).isEqualTo(0x7000);
    }

    @Test
    void dataInDescriptorFollowsTheDataOutDescriptor() {
        assertThat(decode(fixedPart(0x12, 5, 1, 0, 0, READ_10) + DIRECT_4K + indirect(16, 0x1000, ENTRY_0)))
                .isEqualTo(Outcome.OK); // the count of a direct descriptor (5) is ignored
        assertThat(cmd.va(Direction.DATA_OUT)).isEqualTo(0x7f1234560000L);
        assertThat(cmd.tableVa(Direction.DATA_IN)).isEqualTo(0xa00000L);
        assertThat(cmd.descriptorVa(Direction.DATA_IN, 0)).isEqualTo(0xb00000L);
        assertThat(cmd.dataOutLength()).isEqualTo(4096);
        assertThat(cmd.dataInLength()).isEqualTo(0x1000);
    }

    @Test
    void additionalCdbBytesMakeA32ByteCdbBeforeTheDescriptors() {
        String cdb32 = "7f000000000000180009" + "000000000000" + "00000000000010000000000000000008";
        // ADDITIONAL CDB LENGTH 4 words in bits 7..2; the reserved bits 1..0 set and ignored
        ByteBuf buf = buffer(fixedPart(0x01, 0, 0, 1, 0x13, cdb32.substring(0, 32)) + cdb32.substring(32) + DIRECT_4K);
        assertThat(cmd.decode(buf, 0, 80)).isEqualTo(Outcome.OK);
        assertThat(cmd.cdbLength()).isEqualTo(32);
        assertThat(buf.getUnsignedByte(cmd.cdbIndex() + 31)).isEqualTo((short) 0x08);
        assertThat(cmd.va(Direction.DATA_IN)).isEqualTo(0x7f1234560000L);
        assertThat(cmd.taskAttribute()).isEqualTo(TaskAttribute.HEAD_OF_QUEUE);
    }

    @Test
    void malformedCommandsAreOutcomesWithReasons() {
        assertMalformed(fixedPart(0, 0, 0, 0, 0, READ_10).substring(0, 80), Outcome.TOO_SHORT, "40 bytes");
        assertMalformed(fixedPart(0x01, 0, 0, 0, 0, READ_10) + DIRECT_4K.substring(0, 16), Outcome.CONTENT_BEYOND_IU,
                "need 64 bytes");
        assertMalformed(fixedPart(0x00, 0, 0, 0, 0x10, READ_10), Outcome.CONTENT_BEYOND_IU, "need 64 bytes");
        assertMalformed(fixedPart(0x03, 0, 0, 0, 0, READ_10) + "00001000", Outcome.UNSUPPORTED_DATA_IN_FORMAT,
                "data-in buffer descriptor format 3");
        assertMalformed(fixedPart(0x40, 0, 0, 0, 0, WRITE_10) + DIRECT_4K, Outcome.UNSUPPORTED_DATA_OUT_FORMAT,
                "data-out buffer descriptor format 4");
        assertMalformed(fixedPart(0x0f, 0, 0, 0, 0, READ_10) + DIRECT_4K, Outcome.UNSUPPORTED_DATA_IN_FORMAT,
                "format 15");
        assertMalformed(fixedPart(0x20, 3, 0, 0, 0, WRITE_10) + indirect(48, 0x3000, ENTRY_0 + ENTRY_1),
                Outcome.CONTENT_BEYOND_IU, "need 116 bytes");
        assertMalformed(fixedPart(0x20, 2, 0, 0, 0, WRITE_10) + indirect(40, 0x3000, ENTRY_0 + ENTRY_1),
                Outcome.INVALID_TABLE_LENGTH, "table of 40 bytes");
        assertMalformed(fixedPart(0x02, 0, 2, 0, 0, READ_10) + indirect(16, 0x3000, ENTRY_0 + ENTRY_1),
                Outcome.INVALID_TABLE_LENGTH, "data-in indirect table of 16 bytes");
        assertMalformed("01" + fixedPart(0, 0, 0, 0, 0, READ_10).substring(2), Outcome.NOT_A_COMMAND, "SRP_TSK_MGMT");
        assertMalformed(fixedPart(0, 0, 0, 0, 0xfc, READ_10) + zeros(252), Outcome.CDB_TOO_LONG, "268");
    }

    private void assertMalformed(String hex, Outcome expected, String inReason) {
        assertThat(decode(hex)).isEqualTo(expected);
        assertThat(cmd.outcome()).isEqualTo(expected);
        assertThat(cmd.reason()).contains(inReason);
    }

    @Test
    void aLengthBeyondTheBufferIsMalformedNotAnException() {
        ByteBuf buf = buffer(fixedPart(0x01, 0, 0, 0, 0, READ_10) + DIRECT_4K);
        assertThat(cmd.decode(buf, 0, 65)).isEqualTo(Outcome.BEYOND_BUFFER);
        assertThat(cmd.decode(buf, 20, 48)).isEqualTo(Outcome.BEYOND_BUFFER);
        assertThat(cmd.decode(buf, -1, 48)).isEqualTo(Outcome.BEYOND_BUFFER);
        assertThat(cmd.reason()).contains("48 bytes");
    }

    @Test
    void theFixedPartIsReadEvenWhenADescriptorIsBad() {
        assertThat(decode(fixedPart(0x50, 0, 0, 0, 0, WRITE_10))).isEqualTo(Outcome.UNSUPPORTED_DATA_OUT_FORMAT);
        assertThat(cmd.tag()).isEqualTo(0xa5L);
        assertThat(cmd.lunField()).isEqualTo(0x0001000000000000L);
        assertThat(cmd.outcome().targetLogoutReason()).isEqualTo(SrpLogout.UNSUPPORTED_DATA_OUT_FORMAT);
    }

    @Test
    void eachDecodeStartsFromNothing() {
        assertThat(decode(fixedPart(0x20, 2, 0, 0, 0, WRITE_10) + indirect(32, 0x3000, ENTRY_0 + ENTRY_1)))
                .isEqualTo(Outcome.OK);
        assertThat(decode(fixedPart(0, 0, 0, 0, 0, READ_10).substring(0, 20))).isEqualTo(Outcome.TOO_SHORT);
        assertThat(cmd.tag()).isZero();
        assertThat(cmd.format(Direction.DATA_OUT)).isEqualTo(SrpDescriptorFormat.NONE);
        assertThat(cmd.inIuCount(Direction.DATA_OUT)).isZero();
        assertThat(cmd.dataOutLength()).isZero();
    }

    /** Any bytes: an outcome, never an exception, and a well-formed one's entries all readable. */
    @Test
    void randomBytesNeverThrow() {
        Random random = new Random(42);
        byte[] bytes = new byte[512];
        for (int i = 0; i < 20_000; i++) {
            random.nextBytes(bytes);
            bytes[0] = (byte) SrpIu.CMD;
            bytes[5] = (byte) (random.nextInt(4) << 4 | random.nextInt(4)); // mostly defined formats
            bytes[6] = (byte) random.nextInt(4);
            bytes[7] = (byte) random.nextInt(4);
            bytes[31] = (byte) (random.nextBoolean() ? 0 : bytes[31]);
            ByteBuf buf = Unpooled.wrappedBuffer(bytes);
            int length = random.nextInt(bytes.length + 1);
            int offset = random.nextBoolean() ? LINUX_IMMEDIATE_DATA_OFFSET : random.nextInt(600);
            Outcome outcome = cmd.decode(buf, 0, length, offset);
            assertThat(cmd.reason()).isNotEmpty();
            if (outcome == Outcome.OK) {
                for (Direction d : Direction.values()) {
                    for (int e = 0; e < cmd.inIuCount(d); e++) {
                        cmd.descriptorLength(d, e);
                    }
                }
            }
        }
    }
}
