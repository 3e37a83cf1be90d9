package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.jscsi.initiator.Configuration;
import org.jscsi.initiator.Initiator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jSCSI initiator (a pure-Java client, independent of ours) logs in to the daemon, reads the
 * capacity of LUN 0 (jSCSI always addresses LUN 0, here the memory store), writes blocks with
 * known content, reads them back and logs out.
 */
class JscsiInitiatorIT {

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension();

    private static final String SESSION = "jtarget-it";
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    @Test
    void writesBlocksReadsThemBackAndLogsOut() {
        assertTimeoutPreemptively(TIMEOUT, this::writeReadLogout,
                () -> "jSCSI did not finish within " + TIMEOUT.toSeconds() + " s\n" + DAEMON.daemon().describe());
    }

    private void writeReadLogout() throws Exception {
        Initiator initiator = new Initiator(configuration());
        try {
            initiator.createSession(SESSION);
        } catch (NullPointerException e) {
            // jSCSI 2.2 logs the real cause (login, or READ CAPACITY of LUN 0) and then trips over a null session.
            throw new AssertionError("jSCSI could not open a session to " + DaemonConfig.IQN + " (its log in the test output "
                    + "has the cause: login or READ CAPACITY of LUN 0 failed)\n" + DAEMON.daemon().describe(), e);
        }
        try {
            long blockSize = initiator.getBlockSize(SESSION);
            long capacity = initiator.getCapacity(SESSION);
            long lunBytes = DAEMON.config().lunBytes(DaemonConfig.MEMORY_LUN);
            assertThat(blockSize).as("block size from READ CAPACITY").isIn(512L, 4096L);
            // jSCSI reports READ CAPACITY's "returned logical block address" (the last LBA).
            assertThat((capacity + 1) * blockSize).as("capacity " + capacity + " x " + blockSize).isEqualTo(lunBytes);

            byte[] first = pattern(64 * 1024, 1);
            byte[] second = pattern((int) blockSize, 2);
            int secondLba = (int) (lunBytes / blockSize) - 1;
            initiator.write(SESSION, ByteBuffer.wrap(first), 100, first.length);
            initiator.write(SESSION, ByteBuffer.wrap(second), secondLba, second.length);

            ByteBuffer readFirst = ByteBuffer.allocate(first.length);
            ByteBuffer readSecond = ByteBuffer.allocate(second.length);
            initiator.read(SESSION, readFirst, 100, first.length);
            initiator.read(SESSION, readSecond, secondLba, second.length);
            assertThat(readFirst.array()).as("64 KiB at LBA 100 read back").isEqualTo(first);
            assertThat(readSecond.array()).as("last block (LBA " + secondLba + ") read back").isEqualTo(second);
        } finally {
            initiator.closeSession(SESSION);
        }
        assertThat(initiator.noSessions()).as("jSCSI has no session left after logout").isTrue();
    }

    /** jSCSI reads an XML file validated against the jscsi.xsd shipped in its jar. */
    private Configuration configuration() throws Exception {
        Path xsd = tmp.resolve("jscsi.xsd");
        try (InputStream in = Configuration.class.getResourceAsStream("/jscsi.xsd")) {
            assertThat(in).as("jscsi.xsd inside the jSCSI initiator jar").isNotNull();
            Files.copy(in, xsd);
        }
        Path xml = Files.writeString(tmp.resolve("jscsi.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <configuration xmlns="http://www.jscsi.org/2006-09"
                    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                    xsi:schemaLocation="http://www.jscsi.org/2006-09 jscsi.xsd">
                  <global>
                    <AuthMethod>None</AuthMethod>
                    <DataDigest>None</DataDigest>
                    <DataPDUInOrder>Yes</DataPDUInOrder>
                    <DataSequenceInOrder>Yes</DataSequenceInOrder>
                    <DefaultTime2Retain>20</DefaultTime2Retain>
                    <DefaultTime2Wait>2</DefaultTime2Wait>
                    <ErrorRecoveryLevel>0</ErrorRecoveryLevel>
                    <FirstBurstLength>65536</FirstBurstLength>
                    <HeaderDigest>None</HeaderDigest>
                    <IFMarker>No</IFMarker>
                    <IFMarkInt>2048</IFMarkInt>
                    <ImmediateData>Yes</ImmediateData>
                    <InitialR2T>Yes</InitialR2T>
                    <InitiatorAlias>jtarget-it</InitiatorAlias>
                    <InitiatorName>iqn.2026-11.org.jtarget:jscsi-it</InitiatorName>
                    <MaxBurstLength>262144</MaxBurstLength>
                    <MaxConnections>1</MaxConnections>
                    <MaxOutstandingR2T>1</MaxOutstandingR2T>
                    <MaxRecvDataSegmentLength>8192</MaxRecvDataSegmentLength>
                    <OFMarker>No</OFMarker>
                    <OFMarkInt>2048</OFMarkInt>
                    <SessionType>Normal</SessionType>
                  </global>
                  <target id="%s" address="%s" port="%d">
                    <TargetName>%s</TargetName>
                  </target>
                </configuration>
                """.formatted(SESSION, DaemonProcess.HOST, DAEMON.daemon().port(), DaemonConfig.IQN));
        return Configuration.create(xsd.toFile(), xml.toFile());
    }

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }
}
