package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * EXTENDED COPY (LID1, SPC-4 6.4) between two LUs of the real daemon: 8 MiB of random data on
 * the memory LUN 0 is copied by one block-to-block segment to the file LUN 1, the copy targets
 * named by identification CSCD descriptors carrying each LU's NAA designator as INQUIRY VPD 83h
 * reports it. The command's GOOD status alone means the copy is done (no RECEIVE COPY RESULTS:
 * the list uses LIST ID USAGE 11b, "no list identifier"), so both ranges read back at once with
 * the same SHA-256, and the block after the destination range is untouched. Over TCP, over iSER
 * and over SRP ({@link ScsiTransport}): the copy itself runs inside the daemon, the fabric only
 * carries the parameter list (immediate data over iSER and SRP) and the reads and writes around it.
 */
class ExtendedCopyIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int BLOCK = 512;
    private static final int CHUNK_BLOCKS = 256; // 128 KiB per READ/WRITE(10)
    private static final int COPY_BLOCKS = 16384; // 8 MiB
    private static final int SOURCE_LUN = 0;
    private static final int DESTINATION_LUN = 1;
    private static final int CSCD_LENGTH = 32;
    private static final int SEGMENT_LENGTH = 28;
    private static final int HEADER_LENGTH = 16;

    @RegisterExtension
    static final DaemonExtension DAEMON = DaemonExtension.withRdmaPortals(portals -> portals.yaml() + """
                backstores:
                  - { name: ram0, type: memory, size: 16MiB }
                  - { name: file0, type: file, path: copy.img, size: 16MiB, create: true }
                targets:
                  - iqn: %s
                    portals: [%s]
                    luns:
                      - { lun: 0, backstore: ram0 }
                      - { lun: 1, backstore: file0 }
                    acl: ["*"]
                %s""".formatted(DaemonConfig.IQN, Portals.TARGET_PORTALS, Portals.TARGET_SRP));

    @ParameterizedTest(name = "[{0}] EXTENDED COPY copies 8 MiB from the memory LUN to the file LUN")
    @EnumSource(ScsiTransport.class)
    void extendedCopyCopies8MiBFromTheMemoryLunToTheFileLun(ScsiTransport transport) throws Exception {
        try (ScsiClient c = transport.login(DAEMON, "iqn.2026-11.org.jtarget:xcopy-it", TIMEOUT)) {
            assertThat(c.testUnitReadyClearingUnitAttention(SOURCE_LUN).good()).isTrue();
            assertThat(c.testUnitReadyClearingUnitAttention(DESTINATION_LUN).good()).isTrue();

            byte[] chunk = new byte[CHUNK_BLOCKS * BLOCK];
            Random random = new Random(83);
            MessageDigest written = MessageDigest.getInstance("SHA-256");
            for (int lba = 0; lba < COPY_BLOCKS; lba += CHUNK_BLOCKS) {
                random.nextBytes(chunk);
                written.update(chunk);
                ScsiResult w = c.write10(SOURCE_LUN, lba, chunk, BLOCK);
                assertThat(w.good()).as("WRITE(10) at " + lba + ": " + w).isTrue();
            }
            String expected = HexFormat.of().formatHex(written.digest());

            byte[] list = parameterList(c.naaDesignator(SOURCE_LUN), c.naaDesignator(DESTINATION_LUN));
            ScsiResult x = c.execute(SOURCE_LUN, extendedCopyCdb(list.length), list);
            assertThat(x.good()).as("EXTENDED COPY: " + x + "\n" + DAEMON.daemon().describe()).isTrue();

            assertThat(sha256(c, SOURCE_LUN)).as("SHA-256 of the source range").isEqualTo(expected);
            assertThat(sha256(c, DESTINATION_LUN)).as("SHA-256 of the destination range after the copy")
                    .isEqualTo(expected);
            ScsiResult after = c.read10(DESTINATION_LUN, COPY_BLOCKS, 1, BLOCK);
            assertThat(after.good()).as("READ(10) past the range: " + after).isTrue();
            assertThat(after.data()).as("the block after the copied range is untouched").containsOnly((byte) 0);
            c.logout();
        }
    }

    /**
     * The LID1 parameter list (SPC-4 6.4.3): header, CSCD 0 = source, CSCD 1 = destination
     * (identification descriptors E4h, 6.4.5.2), one block-to-block segment (02h, 6.4.6.5).
     */
    private static byte[] parameterList(byte[] sourceNaa, byte[] destinationNaa) {
        ByteBuffer p = ByteBuffer.allocate(HEADER_LENGTH + 2 * CSCD_LENGTH + SEGMENT_LENGTH);
        p.put(0, (byte) 0); // LIST IDENTIFIER
        p.put(1, (byte) (0x3 << 3)); // LIST ID USAGE 11b: no list identifier, nothing held
        p.putShort(2, (short) (2 * CSCD_LENGTH)); // CSCD DESCRIPTOR LIST LENGTH
        p.putInt(8, SEGMENT_LENGTH); // SEGMENT DESCRIPTOR LIST LENGTH
        p.putInt(12, 0); // INLINE DATA LENGTH
        identificationCscd(p, HEADER_LENGTH, sourceNaa);
        identificationCscd(p, HEADER_LENGTH + CSCD_LENGTH, destinationNaa);
        int s = HEADER_LENGTH + 2 * CSCD_LENGTH;
        p.put(s, (byte) 0x02); // block device to block device
        p.putShort(s + 2, (short) (SEGMENT_LENGTH - 4)); // DESCRIPTOR LENGTH 0018h
        p.putShort(s + 4, (short) 0); // SOURCE CSCD DESCRIPTOR INDEX
        p.putShort(s + 6, (short) 1); // DESTINATION CSCD DESCRIPTOR INDEX
        p.putShort(s + 10, (short) COPY_BLOCKS); // BLOCK DEVICE NUMBER OF BLOCKS
        p.putLong(s + 12, 0L); // SOURCE LBA
        p.putLong(s + 20, 0L); // DESTINATION LBA
        return p.array();
    }

    /** Identification CSCD descriptor: E4h, peripheral type 00h, designation descriptor, DISK BLOCK LENGTH. */
    private static void identificationCscd(ByteBuffer p, int at, byte[] naa) {
        p.put(at, (byte) 0xE4);
        p.put(at + 1, (byte) 0x00); // LU ID TYPE 0, NUL 0, PERIPHERAL DEVICE TYPE 00h (block)
        p.put(at + 4, (byte) 0x01); // CODE SET binary
        p.put(at + 5, (byte) 0x03); // ASSOCIATION logical unit, DESIGNATOR TYPE NAA
        p.put(at + 7, (byte) ScsiClient.NAA_LENGTH);
        p.put(at + 8, naa);
        p.put(at + 29, (byte) 0).put(at + 30, (byte) (BLOCK >> 8)).put(at + 31, (byte) BLOCK); // DISK BLOCK LENGTH
    }

    /** EXTENDED COPY(LID1): 83h, SERVICE ACTION 00h, PARAMETER LIST LENGTH in bytes 10..13. */
    private static byte[] extendedCopyCdb(int length) {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) 0x83;
        ByteBuffer.wrap(cdb).putInt(10, length);
        return cdb;
    }

    /** SHA-256 of the first {@link #COPY_BLOCKS} blocks of {@code lun}. */
    private static String sha256(ScsiClient c, int lun) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int lba = 0; lba < COPY_BLOCKS; lba += CHUNK_BLOCKS) {
            ScsiResult r = c.read10(lun, lba, CHUNK_BLOCKS, BLOCK);
            assertThat(r.good()).as("READ(10) of LUN " + lun + " at " + lba + ": " + r).isTrue();
            assertThat(r.data()).hasSize(CHUNK_BLOCKS * BLOCK);
            sha.update(r.data());
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
