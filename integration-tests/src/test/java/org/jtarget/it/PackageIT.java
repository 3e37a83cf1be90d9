package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Debian package that {@code ./dev package} builds ({@code packaging/build-deb}, run here on
 * the jars this build made): what it holds and declares, its hardened systemd unit, and the daemon
 * and initiator tool it installs, run from the unpacked tree ({@code dpkg-deb -x}) with no JDK in
 * their environment, on the Java runtime the package brings.
 */
class PackageIT {

    /** jdeps, jlink and dpkg-deb on a busy 2-core host take about a minute. */
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** A container boot; the first run also debootstraps its root file system (about 3 minutes). */
    private static final Duration BOOT_TIMEOUT = Duration.ofMinutes(10);
    /** The exposure score systemd-analyze security may give the unit at most (it said 7.6 as a root service). */
    private static final double MAX_EXPOSURE = 2.5;
    private static final String INSTALL_HOME = "usr/lib/jtarget";
    private static final long MEMORY_LUN_BYTES = 64 * DaemonConfig.MIB;

    @TempDir
    static Path work;

    /** The .deb built for this run. */
    private static Path deb;
    /** Where it is unpacked: the tree dpkg would install under /. */
    private static Path root;
    /** Its control files (dpkg-deb -e): control, conffiles, the maintainer scripts. */
    private static Path control;

    private DaemonProcess daemon;

    @BeforeAll
    static void buildAndUnpack() throws IOException {
        ClientTool.require("dpkg-deb", "dpkg");
        ClientTool.Result build = ClientTool.runOk(BUILD_TIMEOUT, null,
                DaemonProcess.home().resolve("packaging/build-deb").toString(), work.resolve("dist").toString());
        deb = Path.of(build.stdout().strip().lines().reduce((first, last) -> last).orElseThrow());
        assertThat(deb).as(build.describe()).isRegularFile();
        root = work.resolve("root");
        dpkgDeb("-x", deb.toString(), root.toString());
        control = work.resolve("control");
        dpkgDeb("-e", deb.toString(), control.toString());
        makePathWithoutJava();
    }

    @AfterEach
    void stopDaemon() {
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    @Test
    void holdsTheRuntimeTheJarsTheLaunchersTheUnitAndTheConfig() {
        String version = System.getProperty("jtarget.version");
        assertThat(version).as("-Djtarget.version (set by failsafe)").isNotBlank();

        String contents = dpkgDeb("-c", deb.toString()).stdout();

        assertThat(contents)
                .contains(" ./" + INSTALL_HOME + "/runtime/bin/java\n")
                .contains(" ./" + INSTALL_HOME + "/lib/target-daemon-" + version + ".jar\n")
                .contains(" ./" + INSTALL_HOME + "/lib/initiator-tools-" + version + ".jar\n")
                .contains(" ./" + INSTALL_HOME + "/lib/netty-transport-native-epoll-")
                .contains(" ./" + INSTALL_HOME + "/bin/jtargetd\n")
                .contains(" ./usr/bin/jtargetd -> ../lib/jtarget/bin/jtargetd\n")
                .contains(" ./usr/bin/jtarget-initiator -> ../lib/jtarget/bin/jtarget-initiator\n")
                .contains(" ./usr/bin/jtargetctl -> ../lib/jtarget/bin/jtargetctl\n")
                .contains(" ./lib/systemd/system/jtargetd.service\n")
                .containsPattern("(?m)^-rw-r----- root/root .* \\./etc/jtarget/jtarget\\.yaml$")
                .doesNotContain("/opt/");
        assertThat(dpkgDeb("-f", deb.toString(), "Package", "Version", "Architecture").stdout())
                .isEqualTo("Package: jtarget\nVersion: " + version.replace('-', '~') + "\nArchitecture: amd64\n");
    }

    /**
     * Debian's own checker finds nothing (its overrides, packaging/lintian/jtarget, say why for
     * what a self-contained Java runtime must do differently), and the man pages read as pages:
     * {@code man} renders each with its sections.
     */
    @Test
    void lintianIsCleanAndTheManPagesRender() {
        ClientTool.require("lintian", "lintian");
        ClientTool.require("man", "man-db");
        ClientTool.require("col", "bsdextrautils");
        ClientTool.Result lint = ClientTool.runOk(BUILD_TIMEOUT, null, "lintian", "--fail-on", "error,warning",
                deb.toString());
        assertThat(lint.stdout().lines().filter(l -> l.matches("^[EW]: .*"))).as(lint.describe()).isEmpty();
        assertThat(root.resolve("usr/share/doc/jtarget/copyright")).isRegularFile();
        Map<String, List<String>> pages = Map.of(
                "man8/jtargetd.8.gz", List.of("SYNOPSIS", "jtargetd --check --config FILE", "OPTIONS", "--witness",
                        "Exit status:", "FILES", "SEE ALSO"),
                "man8/jtargetctl.8.gz", List.of("SYNOPSIS", "OPTIONS", "COMMANDS", "jtargetctl lun add", "TARGET LUN",
                        "jtargetctl session kill"),
                "man1/jtarget-initiator.1.gz", List.of("SYNOPSIS", "jtarget-initiator bench --url URL", "COMMANDS",
                        "--rwmixread PCT", "--journal FILE", "SEE ALSO"));
        pages.forEach((page, expected) -> {
            Path file = root.resolve("usr/share/man").resolve(page);
            assertThat(file).as(page).isRegularFile();
            ClientTool.Result man = ClientTool.runOk(TIMEOUT, null, "sh", "-c",
                    "MANWIDTH=100 man -l \"$1\" | col -b", "man", file.toString());
            assertThat(man.stdout()).as(page).contains(expected);
        });
    }

    @Test
    void theConfigIsAConffileAndNoMaintainerScriptEnablesOrStartsTheService() throws IOException {
        assertThat(Files.readString(control.resolve("conffiles"))).isEqualTo("/etc/jtarget/jtarget.yaml\n");
        for (String script : List.of("postinst", "prerm", "postrm")) {
            assertThat(control.resolve(script)).as(script).isExecutable();
            ClientTool.runOk(TIMEOUT, null, "sh", "-n", control.resolve(script).toString());
            assertThat(Files.readString(control.resolve(script))).as(script + ": the admin enables and starts it")
                    .doesNotContainPattern("systemctl[^\\n]*\\b(enable|start|restart)\\b");
        }
        assertThat(dpkgDeb("-f", deb.toString(), "Depends").stdout()).as("postinst runs adduser").contains("adduser");
    }

    /**
     * The package's postinst run twice (install, then upgrade) with the commands it calls
     * replaced by stand-ins that log their arguments and keep a user list, so that nothing on this
     * host changes: the user is created once, the config handed to its group, systemd reloaded
     * when it runs (as on this host or not), never anything enabled or started.
     */
    @Test
    void postinstCreatesTheUserOnceAndNeverStartsTheService() throws IOException {
        Path stubs = Files.createDirectories(work.resolve("postinst-stubs"));
        Path calls = stubs.resolve("calls");
        Path users = stubs.resolve("users");
        Files.writeString(users, "root\n");
        stub(stubs, "getent", "[ \"$1\" = passwd ] && grep -qx \"$2\" " + users + " || exit 2");
        stub(stubs, "adduser", "echo \"adduser $*\" >> " + calls + "; for a; do last=$a; done; echo \"$last\" >> " + users);
        stub(stubs, "chgrp", "echo \"chgrp $*\" >> " + calls);
        stub(stubs, "systemctl", "echo \"systemctl $*\" >> " + calls);
        String path = "PATH=" + stubs + ":/usr/bin:/bin";
        String postinst = control.resolve("postinst").toString();

        ClientTool.runOk(TIMEOUT, null, "env", "-i", path, postinst, "configure", "");
        ClientTool.runOk(TIMEOUT, null, "env", "-i", path, postinst, "configure", "0.1.0");

        List<String> expected = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            if (run == 0) {
                expected.add("adduser --system --group --no-create-home --home /var/lib/jtarget "
                        + "--gecos jtarget SCSI target daemon jtarget");
            }
            expected.add("chgrp jtarget /etc/jtarget/jtarget.yaml");
            if (Files.isDirectory(Path.of("/run/systemd/system"))) {
                expected.add("systemctl --system daemon-reload");
            }
        }
        assertThat(Files.readAllLines(calls)).as("what postinst ran, install then upgrade").isEqualTo(expected);
    }

    /** An executable {@code dir/name}: a /bin/sh script of {@code body}. */
    private static void stub(Path dir, String name, String body) throws IOException {
        Path script = dir.resolve(name);
        Files.writeString(script, "#!/bin/sh\n" + body + "\n");
        script.toFile().setExecutable(true);
    }

    @Test
    void theShippedConfigIsForTheServiceAndStartsTheDaemon() throws IOException {
        String shipped = Files.readString(root.resolve("etc/jtarget/jtarget.yaml"));
        assertThat(shipped).contains("state-dir: /var/lib/jtarget\n").contains("listen: 0.0.0.0:3260\n")
                .contains("path: /var/lib/jtarget/data/");

        // The same file with its writable place and its port moved where a test may use them.
        int port = DaemonProcess.freePort();
        Path dir = Files.createDirectories(work.resolve("shipped-config"));
        Path config = DaemonConfig.write(dir, shipped.replace("/var/lib/jtarget", dir.toString())
                .replace("/run/jtarget", dir.toString())
                .replace("0.0.0.0:3260", DaemonProcess.HOST + ":" + port));
        daemon = DaemonProcess.startLauncher(root.resolve("usr/bin/jtargetd"), config, port, withoutJdk());

        assertThat(dir.resolve("data/disk0.img")).as("the file store it creates").isRegularFile();
    }

    @Test
    void theUnitIsTheHardenedOneWithAnExposureOfAtMostTwoAndAHalf() throws IOException {
        Path packaged = root.resolve("lib/systemd/system/jtargetd.service");
        assertThat(Files.readString(packaged)).as("the package's unit is systemd/jtargetd.service")
                .isEqualTo(Files.readString(DaemonProcess.home().resolve("systemd/jtargetd.service")));
        ClientTool.require("systemd-analyze", "systemd");

        // --offline: judge the file alone, without asking a running systemd (there may be none).
        ClientTool.Result r = ClientTool.runOk(TIMEOUT, null, "systemd-analyze", "security", "--offline=true",
                packaged.toString());

        Matcher overall = Pattern.compile("Overall exposure level for jtargetd\\.service: (\\d+\\.\\d+)")
                .matcher(r.stdout());
        assertThat(overall.find()).as("an \"Overall exposure level\" line in\n" + r.describe()).isTrue();
        assertThat(Double.parseDouble(overall.group(1)))
                .as("systemd-analyze security exposure of jtargetd.service (at most %s)\n%s", MAX_EXPOSURE, r.stdout())
                .isLessThanOrEqualTo(MAX_EXPOSURE);
    }

    /**
     * The package under a real systemd ({@code integration-tests/nspawn/boot-service}: a Debian
     * container with systemd as PID 1): installed with dpkg -i, its shipped config opened to any
     * initiator, the unit started at boot, reloaded and stopped by systemd.
     */
    @Test
    void underSystemdTheUnitRunsTheDaemonAsJtargetWithTwoCapabilitiesAndServesTheShippedConfig() {
        ClientTool.require("systemd-nspawn", "systemd-container");
        ClientTool.require("debootstrap", "debootstrap");

        ClientTool.Result r = ClientTool.runOk(BOOT_TIMEOUT, null,
                DaemonProcess.home().resolve("integration-tests/nspawn/boot-service").toString(), deb.toString());

        assertThat(r.stdout()).as(r.describe())
                .contains("ActiveState=active\n").contains("StatusText=serving 1 target(s) on 1 portal(s)\n")
                .contains("NRestarts=0\n")
                .contains("User=jtarget\n")
                // CAP_NET_BIND_SERVICE (bit 10) and CAP_IPC_LOCK (bit 14), nothing else
                .contains("CapEff:\t0000000000004400\n")
                .contains("Exe=/usr/lib/jtarget/runtime/bin/java\n")
                .contains("pinned arena 64MiB (pinned)")
                .containsPattern("(?m)^Lun:0\\s+Type:DIRECT_ACCESS")
                .contains("Jtargetctl=ok\n").containsPattern("(?m)^  iqn\\.2026-11\\.org\\.jtarget:disk0 ")
                .contains("Reload=ok\n").contains("AfterReloadActiveState=active\n")
                .contains("AfterStopResult=success\n").contains("AfterStopExecMainStatus=0\n");
    }

    @Test
    void helpWorksWithoutAJdk() {
        ClientTool.Result ctl = runPackaged("jtargetctl", "--help");
        assertThat(ctl.exitCode()).as(ctl.describe()).isZero();
        assertThat(ctl.stdout()).as(ctl.describe()).startsWith("Usage: jtargetctl ");
        ClientTool.Result daemon = runPackaged("jtargetd", "--help");
        assertThat(daemon.exitCode()).as(daemon.describe()).isZero();
        assertThat(daemon.stdout()).as(daemon.describe()).startsWith("Usage: jtargetd ");
        ClientTool.Result initiator = runPackaged("jtarget-initiator", "--help");
        assertThat(initiator.exitCode()).as(initiator.describe()).isZero();
        assertThat(initiator.stdout()).as(initiator.describe()).startsWith("usage: jtarget-initiator ");
    }

    @Test
    void thePackagedDaemonOnItsOwnRuntimeServesAMemoryLunToInitiators() throws IOException {
        ClientTool.require("iscsi-ls", "libiscsi-bin");
        int port = DaemonProcess.freePort();
        Path dir = Files.createDirectories(work.resolve("memory-lun"));
        // The tests' standard config: LUN 0 in memory (the one checked), LUN 1 a small file store.
        Path config = new DaemonConfig(port, 0, 0, MEMORY_LUN_BYTES, 16 * DaemonConfig.MIB, "data/file0.img")
                .writeTo(dir);

        daemon = DaemonProcess.startLauncher(root.resolve("usr/bin/jtargetd"), config, port, withoutJdk());

        assertThat(Path.of("/proc", Long.toString(daemon.pid()), "exe").toRealPath())
                .as("the JVM serving is the package's runtime")
                .isEqualTo(root.resolve(INSTALL_HOME + "/runtime/bin/java").toRealPath());
        ClientTool.Result listing = ClientTool.runOk(TIMEOUT, daemon::describe, "iscsi-ls", "-s", daemon.portalUrl());
        assertThat(listing.stdout()).as(listing.describe())
                .containsPattern("(?m)^Target:" + Pattern.quote(DaemonConfig.IQN) + " Portal:127\\.0\\.0\\.1:" + port)
                // iscsi-ls rounds the size from the last LBA down (63M here): readcap checks the exact one
                .containsPattern("(?m)^Lun:0\\s+Type:DIRECT_ACCESS \\(Size:\\d+M\\)");
        ClientTool.Result capacity = runPackaged("jtarget-initiator", "readcap", daemon.url(DaemonConfig.MEMORY_LUN));
        assertThat(capacity.stdout()).as(capacity.describe()).contains("Bytes: " + MEMORY_LUN_BYTES);
    }

    /**
     * An environment with no JDK in it: no JAVA_HOME, and a PATH of one folder holding only what
     * the launchers run (this host's /usr/bin has a java of its own).
     */
    private static Map<String, String> withoutJdk() {
        return Map.of("PATH", work.resolve("bin-without-java").toString());
    }

    private static void makePathWithoutJava() throws IOException {
        Path bin = Files.createDirectories(work.resolve("bin-without-java"));
        for (String program : List.of("bash", "dirname", "readlink")) {
            Files.createSymbolicLink(bin.resolve(program), ClientTool.require(program,
                    program.equals("bash") ? "bash" : "coreutils"));
        }
    }

    /** Runs an installed launcher ({@code usr/bin/NAME} of the unpacked tree) in {@link #withoutJdk()}. */
    private ClientTool.Result runPackaged(String name, String... args) {
        List<String> command = new ArrayList<>(List.of("env", "-i", "PATH=" + withoutJdk().get("PATH"),
                root.resolve("usr/bin/" + name).toString()));
        command.addAll(List.of(args));
        return ClientTool.run(TIMEOUT, daemon == null ? null : daemon::describe, command.toArray(String[]::new));
    }

    private static ClientTool.Result dpkgDeb(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "dpkg-deb";
        System.arraycopy(args, 0, command, 1, args.length);
        return ClientTool.runOk(TIMEOUT, null, command);
    }
}
