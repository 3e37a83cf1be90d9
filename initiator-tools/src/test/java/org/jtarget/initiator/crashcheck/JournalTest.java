package org.jtarget.initiator.crashcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {

    @TempDir
    Path dir;

    private static final JournalRecord RUN = JournalRecord.run(0xabcdL, 16, 4, 512, WriteMode.SYNC);

    private static byte[] bytes(JournalRecord... records) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (JournalRecord r : records) {
            b.writeBytes(r.encode());
        }
        return b.toByteArray();
    }

    @Test
    void recordsRoundTrip() throws Exception {
        JournalRecord ack = JournalRecord.ack(0xabcdL, 3, 19);
        Journal.Contents c = Journal.parse(bytes(RUN, ack));
        assertThat(c.records()).containsExactly(RUN, ack);
        assertThat(c.tornBytes()).isZero();
        assertThat(c.records().get(0).mode()).isEqualTo(WriteMode.SYNC);
        assertThat(c.records().get(1).lba()).isEqualTo(19);
    }

    @Test
    void aRunInModeNoneRoundTrips() throws Exception {
        JournalRecord none = JournalRecord.run(0x1234L, 0, 8, 512, WriteMode.NONE);
        Journal.Contents c = Journal.parse(bytes(RUN, none));
        assertThat(c.records()).containsExactly(RUN, none);
        assertThat(c.records().get(1).mode()).isEqualTo(WriteMode.NONE);
    }

    @Test
    void aPartialLastRecordIsATornTailAndIgnored() throws Exception {
        byte[] whole = bytes(RUN, JournalRecord.ack(0xabcdL, 0, 16), JournalRecord.ack(0xabcdL, 1, 17));
        byte[] torn = Arrays.copyOf(whole, whole.length - 20);
        Journal.Contents c = Journal.parse(torn);
        assertThat(c.records()).hasSize(2);
        assertThat(c.tornBytes()).isEqualTo(JournalRecord.LENGTH - 20);
        assertThat(c.validBytes()).isEqualTo(2L * JournalRecord.LENGTH);
    }

    @Test
    void aGarbledOrZeroedLastRecordIsATornTail() throws Exception {
        byte[] b = bytes(RUN, JournalRecord.ack(0xabcdL, 0, 16), JournalRecord.ack(0xabcdL, 1, 17));
        Arrays.fill(b, 2 * JournalRecord.LENGTH + 10, b.length, (byte) 0);
        Journal.Contents c = Journal.parse(b);
        assertThat(c.records()).hasSize(2);
        assertThat(c.tornBytes()).isEqualTo(JournalRecord.LENGTH);
    }

    @Test
    void aDamagedRecordFollowedByValidOnesIsCorruption() {
        byte[] b = bytes(RUN, JournalRecord.ack(0xabcdL, 0, 16), JournalRecord.ack(0xabcdL, 1, 17));
        b[JournalRecord.LENGTH + JournalRecord.B_OFFSET] ^= 1;
        assertThatThrownBy(() -> Journal.parse(b)).isInstanceOf(CorruptJournalException.class)
                .hasMessageContaining("record 1");
    }

    @Test
    void appendingCutsATornTailFirst() throws Exception {
        Path file = dir.resolve("j");
        byte[] whole = bytes(RUN, JournalRecord.ack(0xabcdL, 0, 16));
        Files.write(file, Arrays.copyOf(whole, whole.length - 5)); // the writer died mid-record
        Journal.Contents before = Journal.read(file);
        try (Journal j = Journal.openForAppend(file, before)) {
            j.append(JournalRecord.ack(0xabcdL, 0, 16));
            j.append(JournalRecord.ack(0xabcdL, 1, 17));
        }
        Journal.Contents after = Journal.read(file);
        assertThat(after.tornBytes()).isZero();
        assertThat(after.records()).hasSize(3);
        assertThat(Expectations.of(after.records()).lbas()).containsExactly(16, 17);
    }

    @Test
    void aNewJournalIsCreated() throws Exception {
        Path file = dir.resolve("new.journal");
        try (Journal j = Journal.openForAppend(file, null)) {
            j.append(RUN);
        }
        assertThat(Files.size(file)).isEqualTo(JournalRecord.LENGTH);
        assertThat(Journal.read(file).records()).containsExactly(RUN);
    }
}
