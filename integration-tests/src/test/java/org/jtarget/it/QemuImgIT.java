package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * QEMU's libiscsi block driver against the real daemon: a 256 MiB random image written with
 * {@code qemu-img convert -n} to each LUN, read back (first 256 MiB only, through a raw driver
 * with offset/size over the iscsi protocol driver) and compared by SHA-256; the file LUN must
 * keep its data across a daemon restart on the same config.
 */
class QemuImgIT {

    private static final long IMAGE_BYTES = 256 * DaemonConfig.MIB;
    private static final Duration QEMU_TIMEOUT = Duration.ofSeconds(180);

    private static Path dir;
    private static DaemonConfig config;
    private static DaemonProcess daemon;
    private static Path image;
    private static String imageSha256;

    @BeforeAll
    static void startDaemonAndMakeImage() throws Exception {
        ClientTool.requireQemuImgWithIscsi();
        dir = Files.createTempDirectory("jtarget-it-QemuImgIT-");
        config = DaemonConfig.standard(DaemonProcess.freePort());
        image = dir.resolve("random.img");
        imageSha256 = Images.writeRandom(image, IMAGE_BYTES, 20261121L);
        daemon = DaemonProcess.start(config.writeTo(dir), config.port());
    }

    @AfterAll
    static void stopDaemon() {
        try {
            if (daemon != null) {
                daemon.stopCleanly();
            }
        } finally {
            if (daemon != null && daemon.isAlive()) {
                daemon.kill();
            }
            DaemonExtension.deleteTree(dir);
        }
    }

    @Test
    void qemuImgInfoSeesTheConfiguredSizes() {
        for (int lun : new int[] {DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN}) {
            ClientTool.Result r = qemuImg("info", "--output=json", daemon.url(lun));
            Matcher m = Pattern.compile("\"virtual-size\":\\s*(\\d+)").matcher(r.stdout());
            assertThat(m.find()).as("virtual-size in\n" + r.describe()).isTrue();
            assertThat(Long.parseLong(m.group(1))).as("LUN %d size\n%s", lun, r.describe())
                    .isEqualTo(config.lunBytes(lun));
        }
    }

    @Test
    void memoryLunRoundTripsA256MiBImage() throws Exception {
        writeImage(DaemonConfig.MEMORY_LUN);

        assertThat(readBackSha256(DaemonConfig.MEMORY_LUN, "mem-out.img"))
                .as("SHA-256 of the first 256 MiB read back from the memory LUN").isEqualTo(imageSha256);
    }

    @Test
    void fileLunRoundTripsA256MiBImageAndKeepsItAcrossARestart() throws Exception {
        writeImage(DaemonConfig.FILE_LUN);
        assertThat(readBackSha256(DaemonConfig.FILE_LUN, "file-out.img"))
                .as("SHA-256 of the first 256 MiB read back from the file LUN").isEqualTo(imageSha256);

        daemon.stopCleanly();
        Path backing = dir.resolve(config.fileImage());
        assertThat(Images.sha256Range(backing, 0, IMAGE_BYTES)).as("SHA-256 of the first 256 MiB of " + backing
                + " after a clean stop").isEqualTo(imageSha256);
        assertThat(Files.size(backing)).as("size of " + backing).isEqualTo(config.fileBytes());

        daemon = DaemonProcess.start(daemon.config(), config.port());
        assertThat(readBackSha256(DaemonConfig.FILE_LUN, "file-out-after-restart.img"))
                .as("SHA-256 of the file LUN after restarting the daemon on the same config").isEqualTo(imageSha256);
    }

    private static void writeImage(int lun) {
        qemuImg("convert", "-n", "-f", "raw", "-O", "raw", image.toString(), daemon.url(lun));
    }

    /**
     * Reads the LUN's first 256 MiB into a local file and hashes it. A plain {@code iscsi://} source
     * would copy the whole (larger) LUN, so the source is a raw driver with offset/size over the
     * iscsi protocol driver (qemu-img 7.2: {@code --image-opts}, no {@code -f}).
     */
    private static String readBackSha256(int lun, String name) throws Exception {
        Path out = dir.resolve(name);
        String opts = "driver=raw,offset=0,size=" + IMAGE_BYTES + ",file.driver=iscsi,file.transport=tcp"
                + ",file.portal=" + DaemonProcess.HOST + ":" + daemon.port() + ",file.target=" + DaemonConfig.IQN
                + ",file.lun=" + lun;
        try {
            qemuImg("convert", "-O", "raw", "--image-opts", opts, out.toString());
            assertThat(Files.size(out)).as("bytes read back from LUN " + lun).isEqualTo(IMAGE_BYTES);
            return Images.sha256Range(out, 0, IMAGE_BYTES);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static ClientTool.Result qemuImg(String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "qemu-img";
        System.arraycopy(args, 0, cmd, 1, args.length);
        return ClientTool.runOk(QEMU_TIMEOUT, daemon::describe, cmd);
    }
}
