package org.jtarget.scsi.spc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.sbc.SbcProvisioning;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;

class SpcInquiryTest {

    private final CoreHarness h = CoreHarness.of(new TestStore(512, 64, true, false), false);
    private final CoreHarness thin = CoreHarness.of(new TestStore(512, 64, true, true), false);

    private Result inquiry(int evpd, int page, int alloc) {
        return h.run(of(0x12, evpd, page, alloc >>> 8, alloc, 0));
    }

    @Test
    void standardDataReportsSpc4CmdqueAndVendor() {
        byte[] d = inquiry(0, 0, 255).dataIn();
        assertThat(d).hasSize(96);
        assertThat(d[0]).isZero();
        assertThat(d[2]).isEqualTo((byte) 0x06);
        assertThat(d[3] & 0x0F).isEqualTo(2);
        assertThat(d[4] & 0xFF).isEqualTo(91);
        assertThat(d[5] & 0x30).as("TPGS: implicit and explicit ALUA").isEqualTo(0x30);
        assertThat(d[7] & 0x02).isEqualTo(2);
        assertThat(new String(d, 8, 8, StandardCharsets.US_ASCII)).isEqualTo("JTARGET ");
    }

    @Test
    void allocationLengthTruncatesData() {
        assertThat(inquiry(0, 0, 5).dataIn()).hasSize(5);
    }

    @Test
    void pageCodeWithoutEvpdGivesInvalidFieldInCdb() {
        Result r = inquiry(0, 0x80, 255);
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(r.asc()).isEqualTo(0x24);
    }

    @Test
    void unsupportedVpdPageGivesInvalidFieldInCdb() {
        assertThat(inquiry(1, 0x99, 255).asc()).isEqualTo(0x24);
    }

    @Test
    void supportedPagesLeaveOutLogicalBlockProvisioningOnAFullyProvisionedLu() {
        byte[] d = inquiry(1, 0, 255).dataIn();
        assertThat(d).containsExactly(0, 0, 0, 6, 0x00, 0x80, 0x83, 0x8F - 256, 0xB0 - 256, 0xB1 - 256);
        assertThat(inquiry(1, 0xB2, 255).asc()).isEqualTo(0x24);
    }

    @Test
    void standardInquirySets3pcForExtendedCopy() {
        byte[] d = inquiry(0, 0, 96).dataIn();
        assertThat(d[5] & 0x08).as("3PC").isEqualTo(0x08);
    }

    @Test
    void thirdPartyCopyPageListsTheLid1Descriptors() {
        byte[] d = inquiry(1, 0x8F, 1024).dataIn();
        assertThat(d[1] & 0xFF).isEqualTo(0x8F);
        assertThat(((d[2] & 0xFF) << 8 | (d[3] & 0xFF)) + 4).isEqualTo(d.length);
        java.util.List<Integer> types = new java.util.ArrayList<>();
        for (int at = 4; at < d.length; ) {
            int type = (d[at] & 0xFF) << 8 | (d[at + 1] & 0xFF);
            int len = (d[at + 2] & 0xFF) << 8 | (d[at + 3] & 0xFF);
            assertThat(len % 4).as("descriptor %04x padded to 4", type).isZero();
            if (type == 0x0004) {
                assertThat((d[at + 8] & 0xFF) << 8 | (d[at + 9] & 0xFF))
                        .isEqualTo(org.jtarget.scsi.copy.CopyLimits.MAX_CSCD_DESCRIPTORS);
            }
            if (type == 0x0001) {
                assertThat(d[at + 5] & 0xFF).as("EXTENDED COPY").isEqualTo(0x83);
            }
            types.add(type);
            at += 4 + len;
        }
        assertThat(types).containsExactly(0x0001, 0x0004, 0x0008, 0x000C, 0x8001, 0xC001);
    }

    @Test
    void supportedPagesListLogicalBlockProvisioningOnAThinLu() {
        byte[] d = thin.run(of(0x12, 1, 0, 0, 255, 0)).dataIn();
        assertThat(d).containsExactly(0, 0, 0, 7, 0x00, 0x80, 0x83, 0x8F - 256, 0xB0 - 256, 0xB1 - 256, 0xB2 - 256);
    }

    @Test
    void logicalBlockProvisioningSaysUnmapWriteSameZerosAndThin() {
        byte[] d = thin.run(of(0x12, 1, 0xB2, 0, 255, 0)).dataIn();
        // LBPU LBPWS LBPWS10, LBPRZ 001b, ANC_SUP 0; PROVISIONING TYPE 010b
        assertThat(d).containsExactly(0, 0xB2 - 256, 0, 4, 0, 0xE4 - 256, 2, 0);
    }

    @Test
    void blockLimitsReportUnmapLimitsOnAThinLu() {
        ByteBuffer d = ByteBuffer.wrap(thin.run(of(0x12, 1, 0xB0, 0, 255, 0)).dataIn());
        assertThat(d.getInt(20)).as("MAXIMUM UNMAP LBA COUNT").isEqualTo(SbcProvisioning.MAX_UNMAP_LBA_COUNT);
        assertThat(d.getInt(24)).as("MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT").isEqualTo(256);
        assertThat(d.getInt(28)).as("OPTIMAL UNMAP GRANULARITY").isEqualTo(1);
        assertThat(d.getInt(32)).as("UGAVALID, alignment 0").isEqualTo(0x8000_0000);
        assertThat(d.getLong(36)).as("MAXIMUM WRITE SAME LENGTH").isEqualTo(SbcProvisioning.MAX_WRITE_SAME_BYTES / 512);
    }

    @Test
    void blockLimitsReportNoUnmapOnAFullyProvisionedLu() {
        ByteBuffer d = ByteBuffer.wrap(inquiry(1, 0xB0, 255).dataIn());
        assertThat(d.getInt(20)).isZero();
        assertThat(d.getInt(24)).isZero();
        assertThat(d.getInt(28)).isZero();
        assertThat(d.getInt(32)).isZero();
        assertThat(d.getLong(36)).as("WRITE SAME still works").isEqualTo(SbcProvisioning.MAX_WRITE_SAME_BYTES / 512);
    }

    @Test
    void serialIsStableForTheSameSeed() {
        byte[] a = inquiry(1, 0x80, 255).dataIn();
        CoreHarness other = CoreHarness.of(new TestStore(512, 64, true, false), false);
        byte[] b = other.run(of(0x12, 1, 0x80, 0, 255, 0)).dataIn();
        assertThat(a).isEqualTo(b).hasSize(4 + 16);
    }

    @Test
    void deviceIdentificationHasNaaAndTargetPortDesignators() {
        byte[] d = inquiry(1, 0x83, 1024).dataIn();
        assertThat(((d[2] & 0xFF) << 8 | (d[3] & 0xFF)) + 4).isEqualTo(d.length);
        assertThat(d[4 + 1]).isEqualTo((byte) 0x03); // LU, NAA
        assertThat(d[4 + 4] & 0xF0).isEqualTo(0x60); // NAA 6
        String s = new String(d, StandardCharsets.UTF_8);
        assertThat(s).contains("iqn.t,t,0x1").contains("JTARGET ");
    }

    @Test
    void blockLimitsReportsMaximumTransferLength() {
        byte[] d = inquiry(1, 0xB0, 255).dataIn();
        assertThat(d).hasSize(64);
        int max = ((d[8] & 0xFF) << 24) | ((d[9] & 0xFF) << 16) | ((d[10] & 0xFF) << 8) | (d[11] & 0xFF);
        assertThat(max).isEqualTo(16 * 1024 * 1024 / 512);
        assertThat(d[5] & 0xFF).as("MAXIMUM COMPARE AND WRITE LENGTH").isEqualTo(255);
    }

    @Test
    void memoryStoreIsNonRotating() {
        byte[] d = inquiry(1, 0xB1, 255).dataIn();
        assertThat(d[4] << 8 | d[5]).isEqualTo(1);
    }

    @Test
    void reportLunsListsLunsAndRejectsSmallAllocation() {
        byte[] d = h.run(of(0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0)).dataIn();
        assertThat(d).containsExactly(0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(h.run(of(0xA0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 0, 0)).asc()).isEqualTo(0x24);
        assertThat(h.run(of(0xA0, 0, 3, 0, 0, 0, 0, 0, 0, 64, 0, 0)).asc()).isEqualTo(0x24);
    }
}
