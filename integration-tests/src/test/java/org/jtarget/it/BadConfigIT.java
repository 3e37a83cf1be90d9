package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A bad config stops the daemon before it serves anything: exit code 2 within 20 s, exactly one
 * line on stderr naming the offending key, and no portal left listening.
 */
class BadConfigIT {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    static Stream<Arguments> badConfigs() {
        return Stream.of(
                bad("unknown backstore reference", y -> y.replace("backstore: file0", "backstore: nosuch"),
                        "backstore"),
                bad("duplicate LUN number", y -> y.replace("{ lun: 1, backstore: file0", "{ lun: 0, backstore: file0"),
                        "lun"),
                bad("missing file without create: true", y -> y.replace("create: true", "create: false"), "path"),
                bad("typo in a key", y -> y.replace("read-only: false", "read-olny: false"), "read-olny"));
    }

    private static Arguments bad(String what, UnaryOperator<String> edit, String keyWord) {
        return Arguments.of(what, edit, keyWord);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigs")
    void badConfigExitsWithCode2AndOneLineNamingTheKey(String what, UnaryOperator<String> edit, String keyWord)
            throws IOException {
        int port = DaemonProcess.freePort();
        String standard = DaemonConfig.standard(port).toYaml();
        String yaml = edit.apply(standard);
        assertThat(yaml).as("the test's edit must change the config").isNotEqualTo(standard);

        DaemonProcess d = DaemonProcess.launch(DaemonConfig.write(dir, yaml), port);

        assertExitsWithOneLineNaming(d, keyWord);
        assertThat(DaemonProcess.accepting(port)).as("something still listens on port " + port).isFalse();
        if (what.startsWith("missing file")) {
            assertThat(dir.resolve("data/file0.img")).as("the daemon must not create the image without create: true")
                    .doesNotExist();
        }
    }

    @Test
    void portAlreadyInUseExitsWithCode2NamingListen() throws IOException {
        try (ServerSocket squatter = new ServerSocket(0, 1, InetAddress.getByName(DaemonProcess.HOST))) {
            int port = squatter.getLocalPort();
            DaemonProcess d = DaemonProcess.launch(DaemonConfig.standard(port).writeTo(dir), port);

            assertExitsWithOneLineNaming(d, "listen");
            assertThat(d.stderr()).as("the error names the port").contains(Integer.toString(port));
            assertThat(dir.resolve("data/file0.img")).as("the file store this start created is removed again")
                    .doesNotExist();
        }
    }

    /**
     * Start is all or nothing: a second portal that cannot listen leaves the first one closed, the
     * file store the start created removed, and an image that existed before untouched.
     */
    @Test
    void aLaterPortInUseLeavesNoListenerAndNoCreatedFile() throws IOException {
        try (ServerSocket squatter = new ServerSocket(0, 1, InetAddress.getByName(DaemonProcess.HOST))) {
            int port = DaemonProcess.freePort();
            String first = "    listen: 127.0.0.1:" + port + "\n";
            String yaml = DaemonConfig.standard(port).toYaml().replace(first, first + """
                      - { name: second, listen: "127.0.0.1:%d", portal-group-tag: 2 }
                    """.formatted(squatter.getLocalPort()));
            assertThat(yaml).as("the test's edit must add the portal").contains("name: second");
            Path kept = Files.createDirectories(dir.resolve("data")).resolve("kept.img");
            Files.write(kept, new byte[] {42});
            DaemonProcess d = DaemonProcess.launch(DaemonConfig.write(dir, yaml), port);

            assertExitsWithOneLineNaming(d, "portals[1].listen");
            assertThat(DaemonProcess.accepting(port)).as("the first portal is closed again").isFalse();
            assertThat(dir.resolve("data/file0.img")).as("created by the failed start").doesNotExist();
            assertThat(Files.readAllBytes(kept)).containsExactly(42);
        }
    }

    private static void assertExitsWithOneLineNaming(DaemonProcess d, String keyWord) {
        int code = d.awaitExit(EXIT_TIMEOUT);
        String context = "\n" + d.describe();
        assertThat(code).as("exit code for a bad config" + context).isEqualTo(2);
        List<String> lines = d.stderr().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).as("stderr must be exactly one line" + context).hasSize(1);
        assertThat(lines.getFirst().toLowerCase()).as("the stderr line names the key" + context)
                .contains(keyWord.toLowerCase());
        assertThat(Files.exists(d.dir().resolve("daemon.err"))).isTrue();
    }
}
