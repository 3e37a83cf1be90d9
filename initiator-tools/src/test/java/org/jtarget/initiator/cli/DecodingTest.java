package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** INQUIRY, VPD, READ CAPACITY, sense and login status decoding. */
class DecodingTest {

    private static byte[] standardInquiry() {
        byte[] d = new byte[96];
        d[0] = 0x00;
        d[2] = 0x06;
        System.arraycopy("JTARGET MEMORY          0.1 ".getBytes(StandardCharsets.US_ASCII), 0, d, 8, 28);
        return d;
    }

    @Test
    void standardInquiryFields() {
        InquiryData i = InquiryData.decode(standardInquiry());
        assertThat(i.vendor()).isEqualTo("JTARGET");
        assertThat(i.product()).isEqualTo("MEMORY");
        assertThat(i.revision()).isEqualTo("0.1");
        assertThat(i.deviceType()).isZero();
        assertThat(i.version()).isEqualTo(6);
        assertThat(i.describe()).contains("Vendor: JTARGET\n").contains("(direct access block device)");
    }

    @Test
    void serialAndDesignatorPages() {
        byte[] serial = {0, (byte) 0x80, 0, 6, 'A', 'B', 'C', '1', '2', ' '};
        assertThat(VpdPages.describe(serial)).isEqualTo("Unit serial number: ABC12\n");
        byte[] ids = {0, (byte) 0x83, 0, 16,
            0x01, 0x03, 0, 8, 0x60, 0x01, 0x40, 0x50, 0x00, 0x00, 0x00, 0x01,   // binary NAA, LU
            0x53, (byte) 0xa8, 0, 0};                                           // iSCSI, SCSI name string, target device, empty
        String text = VpdPages.describe(ids);
        assertThat(text).contains("NAA (type 0x3, logical unit, code set 1): 6001405000000001")
                .contains("SCSI name string (type 0x8, target device, code set 3): ");
    }

    @Test
    void readCapacity16And10() {
        byte[] d16 = new byte[32];
        d16[5] = 0x0b;
        d16[6] = (byte) 0xff;
        d16[7] = (byte) 0xff;       // last LBA 0xbffff -> 786432 blocks
        d16[10] = 0x02;             // 512
        Capacity c = Capacity.decode16(d16);
        assertThat(c.blockCount()).isEqualTo(786432);
        assertThat(c.blockSize()).isEqualTo(512);
        assertThat(c.bytes()).isEqualTo(384L * 1024 * 1024);
        byte[] d10 = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe, 0, 0, 0x10, 0};
        Capacity c10 = Capacity.decode10(d10);
        assertThat(c10.blockCount()).isEqualTo(0xffffffffL);
        assertThat(c10.blockSize()).isEqualTo(4096);
        assertThat(c.describe()).isEqualTo("Block size: 512\nBlocks: 786432\nBytes: 402653184\n");
    }

    @Test
    void senseAndLoginStatusInWords() {
        assertThat(SenseText.describe(5, 0x21, 0)).isEqualTo(
                "ILLEGAL REQUEST (0x5) 21/00 LOGICAL BLOCK ADDRESS OUT OF RANGE");
        assertThat(SenseText.describe(3, 0x77, 0x01)).isEqualTo("MEDIUM ERROR (0x3) 77/01 ASC 0x77 ASCQ 0x01");
        assertThat(SenseText.describe(-1, -1, -1)).isEqualTo("no sense data");
        assertThat(LoginStatusText.describe(2, 1)).isEqualTo("0x0201 authentication failure");
        assertThat(LoginStatusText.describe(3, 0x7f)).isEqualTo("0x037f unknown status");
    }

    @Test
    void hexDumpLines() {
        byte[] d = "ABCDEFGHIJKLMNOPQ".getBytes(StandardCharsets.US_ASCII);
        assertThat(HexDump.format(d, 0, d.length, 0x200)).isEqualTo(
                "00000200: 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  ABCDEFGHIJKLMNOP\n"
                        + "00000210: 51                                               Q\n");
    }
}
