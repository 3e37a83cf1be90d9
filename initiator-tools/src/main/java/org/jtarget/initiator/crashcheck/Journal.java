package org.jtarget.initiator.crashcheck;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The append-only journal of acknowledged writes: fixed-size {@link JournalRecord}s, each forced
 * to stable storage ({@link FileChannel#force}, fdatasync) before {@link #append} returns, so a
 * record on disk means the target had acknowledged that block before the record was written.
 *
 * <p>A crash of the writer may leave the last record torn (partly written, or garbage). Reading
 * stops at the first record that does not decode and counts the rest as the torn tail, provided
 * no valid record follows it; a damaged record followed by valid ones is corruption and fails the
 * read. Appending to an existing journal first cuts such a torn tail off.
 */
public final class Journal implements AutoCloseable {

    private final FileChannel channel;

    private Journal(FileChannel channel) {
        this.channel = channel;
    }

    /** What a journal file holds: its valid records in order and how many trailing bytes were torn. */
    public record Contents(List<JournalRecord> records, long validBytes, long tornBytes) {
    }

    /** Reads and checks the record framing of {@code file} (which must exist). */
    public static Contents read(Path file) throws IOException {
        return parse(Files.readAllBytes(file));
    }

    /** Parses journal bytes (see the class comment for the torn-tail rule). */
    public static Contents parse(byte[] data) throws CorruptJournalException {
        List<JournalRecord> records = new ArrayList<>();
        int full = data.length / JournalRecord.LENGTH;
        int i = 0;
        for (; i < full; i++) {
            JournalRecord r = JournalRecord.decode(data, i * JournalRecord.LENGTH);
            if (r == null) {
                break;
            }
            records.add(r);
        }
        for (int k = i + 1; k < full; k++) {
            if (JournalRecord.decode(data, k * JournalRecord.LENGTH) != null) {
                throw new CorruptJournalException("journal record " + i + " (byte " + (long) i * JournalRecord.LENGTH
                        + ") is damaged but valid records follow it");
            }
        }
        long valid = (long) i * JournalRecord.LENGTH;
        return new Contents(List.copyOf(records), valid, data.length - valid);
    }

    /**
     * Opens {@code file} for appending, creating it (and forcing its folder so the new name is
     * stable) when missing; an existing torn tail is truncated away first.
     *
     * @return the journal, positioned after the last valid record
     */
    public static Journal openForAppend(Path file, Contents existing) throws IOException {
        boolean created = !Files.exists(file);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            if (existing != null && existing.tornBytes() > 0) {
                ch.truncate(existing.validBytes());
                ch.force(true);
            }
            ch.position(ch.size());
            if (created) {
                forceFolder(file.toAbsolutePath().getParent());
            }
            return new Journal(ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Appends one record and forces it (and the file length) to stable storage. */
    public void append(JournalRecord record) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(record.encode());
        while (b.hasRemaining()) {
            channel.write(b);
        }
        channel.force(false); // fdatasync: data plus the metadata needed to read it back (the new length)
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    private static void forceFolder(Path dir) {
        if (dir == null) {
            return;
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // not every file system lets a folder be opened and forced; the records themselves are forced
        }
    }
}
