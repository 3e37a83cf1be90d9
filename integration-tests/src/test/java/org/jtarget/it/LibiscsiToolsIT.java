package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * libiscsi's command-line tools against the real daemon: discovery and REPORT LUNS (iscsi-ls),
 * standard and VPD INQUIRY (iscsi-inq), READ CAPACITY (16) (iscsi-readcapacity16).
 */
class LibiscsiToolsIT {

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension();

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @BeforeAll
    static void clientsInstalled() {
        ClientTool.require("iscsi-ls", "libiscsi-bin");
        ClientTool.require("iscsi-inq", "libiscsi-bin");
        ClientTool.require("iscsi-readcapacity16", "libiscsi-bin");
    }

    @Test
    void iscsiLsListsTheTargetAndBothLuns() {
        DaemonProcess d = DAEMON.daemon();

        ClientTool.Result r = run("iscsi-ls", "-s", d.portalUrl());

        // iscsi-ls prints "Target:<iqn> Portal:<addr>,<tpgt>" then "Lun:<n>    Type:<type> (Size:<n>M)".
        assertThat(r.stdout()).as(r.describe())
                .containsPattern("(?m)^Target:" + Pattern.quote(DaemonConfig.IQN) + " Portal:127\\.0\\.0\\.1:" + d.port())
                .containsPattern("(?m)^Lun:0\\s+Type:DIRECT_ACCESS")
                .containsPattern("(?m)^Lun:1\\s+Type:DIRECT_ACCESS")
                .doesNotContainPattern("(?m)^Lun:[2-9]");
    }

    @ParameterizedTest
    @ValueSource(ints = {DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN})
    void iscsiInqShowsVendorJtargetOnADirectAccessDevice(int lun) {
        ClientTool.Result r = run("iscsi-inq", DAEMON.daemon().url(lun));

        assertThat(r.stdout()).as(r.describe())
                .containsPattern("(?m)^Peripheral Qualifier:CONNECTED")
                .containsPattern("(?m)^Peripheral Device Type:DIRECT_ACCESS")
                .containsPattern("(?m)^Vendor:JTARGET\\s*$");
    }

    @ParameterizedTest
    @ValueSource(ints = {DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN})
    void supportedVpdPagesListUnitSerialAndDeviceIdentification(int lun) {
        ClientTool.Result r = run("iscsi-inq", "-e", "1", "-c", "0", DAEMON.daemon().url(lun));

        assertThat(r.stdout()).as(r.describe())
                .contains("Page:0x00 SUPPORTED_VPD_PAGES")
                .contains("Page:0x80 UNIT_SERIAL_NUMBER")
                .contains("Page:0x83 DEVICE_IDENTIFICATION");
    }

    @Test
    void unitSerialNumbersArePresentAndDifferPerLun() {
        // iscsi-inq's -c takes a decimal integer: 128 = page 0x80.
        String serial0 = serial(DaemonConfig.MEMORY_LUN);
        String serial1 = serial(DaemonConfig.FILE_LUN);

        assertThat(serial0).isNotBlank();
        assertThat(serial1).isNotBlank();
        assertThat(serial0).as("unit serial numbers of LUN 0 and LUN 1").isNotEqualTo(serial1);
        assertThat(serial(DaemonConfig.MEMORY_LUN)).as("the serial number is stable").isEqualTo(serial0);
    }

    @ParameterizedTest
    @ValueSource(ints = {DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN})
    void deviceIdentificationPageHasALogicalUnitDesignator(int lun) {
        ClientTool.Result r = run("iscsi-inq", "-e", "1", "-c", "131", DAEMON.daemon().url(lun));

        assertThat(r.stdout()).as(r.describe())
                .contains("Page Code:(0x83) DEVICE_IDENTIFICATION")
                .contains("DEVICE DESIGNATOR #0")
                .containsPattern("Association:\\(0\\) LOGICAL_UNIT");
    }

    @ParameterizedTest
    @ValueSource(ints = {DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN})
    void readCapacity16GivesTheConfiguredSize(int lun) {
        ClientTool.Result bytes = run("iscsi-readcapacity16", "-s", DAEMON.daemon().url(lun));
        ClientTool.Result full = run("iscsi-readcapacity16", DAEMON.daemon().url(lun));

        long expected = DAEMON.config().lunBytes(lun);
        assertThat(bytes.stdout().strip()).as(bytes.describe()).isEqualTo(Long.toString(expected));
        long lastLba = number(full, "RETURNED LOGICAL BLOCK ADDRESS:(\\d+)");
        long blockLength = number(full, "LOGICAL BLOCK LENGTH IN BYTES:(\\d+)");
        assertThat((lastLba + 1) * blockLength).as(full.describe()).isEqualTo(expected);
    }

    private static String serial(int lun) {
        ClientTool.Result r = run("iscsi-inq", "-e", "1", "-c", "128", DAEMON.daemon().url(lun));
        Matcher m = Pattern.compile("Unit Serial Number:\\[(.*)]").matcher(r.stdout());
        assertThat(m.find()).as("a 'Unit Serial Number:[...]' line in\n" + r.describe()).isTrue();
        return m.group(1).strip();
    }

    private static long number(ClientTool.Result r, String regex) {
        Matcher m = Pattern.compile(regex).matcher(r.stdout());
        assertThat(m.find()).as("/" + regex + "/ in\n" + r.describe()).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static ClientTool.Result run(String... command) {
        return ClientTool.runOk(TIMEOUT, DAEMON.daemon()::describe, command);
    }
}
