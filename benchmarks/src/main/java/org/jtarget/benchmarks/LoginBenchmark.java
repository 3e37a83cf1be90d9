package org.jtarget.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.login.LoginContext;
import org.jtarget.fabric.iscsi.login.LoginNegotiator;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.login.LoginStep;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;

/**
 * A whole normal-session login through {@link LoginNegotiator} (RFC 7143 6, 13): the security
 * stage with AuthMethod=None, then the operational stage with the keys open-iscsi sends, ending
 * in FullFeaturePhase. Each operation is a new negotiator (one per connection, as in the daemon);
 * the two Login Requests are built once and borrowed.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"--enable-native-access=ALL-UNNAMED", "-Dio.netty.leakDetection.level=disabled"})
public class LoginBenchmark {

    private static final String TARGET = "iqn.2026-11.org.jtarget:bench";
    private static final long ISID = 0x23d000000001L;
    private static final int TRANSIT = LoginNegotiator.TRANSIT_BIT;

    /** open-iscsi's first request (security stage, T=1, NSG=operational). */
    private static final String SECURITY_KEYS = "InitiatorName=iqn.2004-10.com.ubuntu:01:bench\0"
            + "InitiatorAlias=bench\0TargetName=" + TARGET + "\0SessionType=Normal\0AuthMethod=None\0";
    /** open-iscsi's operational offers (T=1, NSG=FullFeaturePhase). */
    private static final String OPERATIONAL_KEYS = "HeaderDigest=None\0DataDigest=None\0DefaultTime2Wait=2\0"
            + "DefaultTime2Retain=0\0IFMarker=No\0OFMarker=No\0ErrorRecoveryLevel=0\0InitialR2T=No\0"
            + "ImmediateData=Yes\0MaxBurstLength=16776192\0FirstBurstLength=262144\0MaxOutstandingR2T=1\0"
            + "MaxConnections=1\0DataPDUInOrder=Yes\0DataSequenceInOrder=Yes\0MaxRecvDataSegmentLength=262144\0";

    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    private final LoginSettings settings = LoginSettings.defaults();
    private final LoginContext context = new OneTarget();
    private IscsiPdu security;
    private IscsiPdu operational;

    @Setup
    public void setUp() {
        security = request(TRANSIT | LoginNegotiator.STAGE_SECURITY << 2 | LoginNegotiator.STAGE_OPERATIONAL, SECURITY_KEYS);
        operational = request(TRANSIT | LoginNegotiator.STAGE_OPERATIONAL << 2 | LoginNegotiator.STAGE_FULL_FEATURE,
                OPERATIONAL_KEYS);
        if (login() == null) {
            throw new IllegalStateException("the benchmark's login does not reach FullFeaturePhase");
        }
    }

    private IscsiPdu request(int flags, String keys) {
        ByteBuf text = alloc.buffer().writeBytes(keys.getBytes(StandardCharsets.UTF_8));
        IscsiPdu pdu = IscsiPdu.create(alloc, Opcode.LOGIN_REQUEST, text);
        pdu.immediate(true);
        pdu.flags(flags);
        pdu.isid(ISID);
        pdu.initiatorTaskTag(1);
        pdu.cmdSn(1);
        pdu.expStatSn(1);
        return pdu;
    }

    @TearDown
    public void tearDown() {
        security.release();
        operational.release();
    }

    /** Both stages; returns the outcome, or null if the login did not complete. */
    @Benchmark
    public Object login() {
        LoginNegotiator negotiator = new LoginNegotiator(context, settings);
        LoginStep first = negotiator.handle(security, alloc);
        first.response().release();
        if (first.kind() != LoginStep.Kind.CONTINUE) {
            return null;
        }
        LoginStep last = negotiator.handle(operational, alloc);
        last.response().release();
        return last.kind() == LoginStep.Kind.FULL_FEATURE ? last.outcome() : null;
    }

    /** One target without CHAP, open to every initiator. */
    private static final class OneTarget implements LoginContext {
        private final IscsiPortalDefinition portal = new IscsiPortalDefinition("bench", "127.0.0.1", 3260, 1);
        private final IscsiTargetDefinition target =
                new IscsiTargetDefinition(TARGET, "bench", null, List.of("*"), null, List.of(portal));

        @Override
        public IscsiTargetDefinition findTarget(String targetName) {
            return target.name().equalsIgnoreCase(targetName) ? target : null;
        }

        @Override
        public Collection<IscsiTargetDefinition> targets() {
            return List.of(target);
        }

        @Override
        public IscsiPortalDefinition portal() {
            return portal;
        }

        @Override
        public boolean sessionExists(String initiatorName, long isid, int tsih, String targetName) {
            return false;
        }
    }
}
