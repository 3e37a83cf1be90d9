package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
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
        imageSha256 = writeRandomImage(image, IMAGE_BYTES, 20261121L);
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
        assertThat(sha256Prefix(backing, IMAGE_BYTES)).as("SHA-256 of the first 256 MiB of " + backing
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
            return sha256Prefix(out, IMAGE_BYTES);
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

    /** Writes {@code bytes} seeded-random bytes and returns their SHA-256. */
    private static String writeRandomImage(Path file, long bytes, long seed) throws IOException {
        MessageDigest sha = sha256();
        Random random = new Random(seed);
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long done = 0; done < bytes; done += chunk.length) {
                random.nextBytes(chunk);
                sha.update(chunk);
                out.write(chunk);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** SHA-256 of the first {@code bytes} bytes of {@code file} (fails if it is shorter). */
    private static String sha256Prefix(Path file, long bytes) throws IOException {
        MessageDigest sha = sha256();
        byte[] buf = new byte[1 << 20];
        long left = bytes;
        try (InputStream in = Files.newInputStream(file)) {
            while (left > 0) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                assertThat(n).as(file + " ended " + left + " bytes before " + bytes).isPositive();
                sha.update(buf, 0, n);
                left -= n;
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
