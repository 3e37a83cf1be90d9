package org.jtarget.fabric.iscsi.login;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.iscsi.ChapCredentials;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class LoginNegotiatorTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final String INITIATOR = "iqn.2024-01.org.example:host";
    private static final String TARGET = "iqn.2024-01.org.jtarget:disk1";
    private static final String CHAP_TARGET = "iqn.2024-01.org.jtarget:disk2";
    private static final ChapCredentials CHAP = new ChapCredentials("alice", "secret-of-alice", "tgt", "secret-of-target");
    private static final long ISID = 0x23d000000001L;
    private static final int SECURITY = 0;
    private static final int OPERATIONAL = 1;
    private static final int FFP = 3;

    private final FakeLoginContext context = new FakeLoginContext()
            .with(FakeLoginContext.target(TARGET, null))
            .with(FakeLoginContext.target(CHAP_TARGET, CHAP))
            .with(FakeLoginContext.target("iqn.2024-01.org.jtarget:private", null, "iqn.someone.else"))
            .with(FakeLoginContext.target("iqn.2024-01.org.jtarget:oneway", new ChapCredentials("bob", "bobsecret", null, null)));
    private final List<IscsiPdu> toRelease = new ArrayList<>();
    private LoginNegotiator negotiator = new LoginNegotiator(context, LoginSettings.defaults(), new Random(1));
    private int cmdSn = 10;

    @AfterEach
    void release() {
        toRelease.forEach(IscsiPdu::release);
    }

    // ---------- helpers ----------

    private static Map<String, String> keys(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static ByteBuf text(Map<String, String> keys) {
        StringBuilder sb = new StringBuilder();
        keys.forEach((k, v) -> sb.append(k).append('=').append(v).append('\0'));
        return Unpooled.copiedBuffer(sb, StandardCharsets.UTF_8);
    }

    private static IscsiPdu request(int flags, ByteBuf data) {
        IscsiPdu pdu = IscsiPdu.create(ALLOC, Opcode.LOGIN_REQUEST, data);
        pdu.immediate(true);
        pdu.flags(flags);
        pdu.isid(ISID);
        pdu.initiatorTaskTag(0x77);
        pdu.bhs().setShort(LoginNegotiator.CID_OFFSET, 3);
        pdu.cmdSn(10);
        pdu.expStatSn(500);
        return pdu;
    }

    private LoginStep send(boolean t, int csg, int nsg, Map<String, String> keys) {
        return send(request((t ? 0x80 : 0) | csg << 2 | nsg, text(keys)));
    }

    private LoginStep send(IscsiPdu request) {
        try {
            LoginStep step = negotiator.handle(request, ALLOC);
            toRelease.add(step.response());
            return step;
        } finally {
            request.release();
        }
    }

    private static Map<String, String> answers(LoginStep step) {
        Map<String, String> m = new LinkedHashMap<>();
        List<Map.Entry<String, String>> pairs = TextParameters.parse(step.response().data());
        assertThat(pairs).isNotNull();
        pairs.forEach(e -> m.put(e.getKey(), e.getValue()));
        return m;
    }

    private static int status(LoginStep step) {
        ByteBuf bhs = step.response().bhs();
        return bhs.getUnsignedByte(LoginNegotiator.STATUS_CLASS_OFFSET) << 8 | bhs.getUnsignedByte(LoginNegotiator.STATUS_DETAIL_OFFSET);
    }

    private static Map<String, String> firstKeys(String target) {
        return keys("InitiatorName", INITIATOR, "SessionType", "Normal", "TargetName", target);
    }

    /** Security stage with AuthMethod=None, then the given operational keys with transit to FFP. */
    private LoginStep loginWith(String... operationalKeys) {
        Map<String, String> first = firstKeys(TARGET);
        first.put("AuthMethod", "None");
        LoginStep step = send(true, SECURITY, OPERATIONAL, first);
        assertThat(status(step)).isZero();
        return send(true, OPERATIONAL, FFP, keys(operationalKeys));
    }

    private static int flags(LoginStep step) {
        return step.response().flags();
    }

    // ---------- stages and header fields ----------

    @Test
    void noneLoginGoesThroughBothStagesToFullFeature() {
        Map<String, String> first = firstKeys(TARGET);
        first.put("AuthMethod", "None");
        LoginStep security = send(true, SECURITY, OPERATIONAL, first);
        assertThat(security.kind()).isEqualTo(LoginStep.Kind.CONTINUE);
        assertThat(flags(security)).isEqualTo(0x80 | SECURITY << 2 | OPERATIONAL);
        assertThat(answers(security)).containsEntry("AuthMethod", "None").containsEntry("TargetPortalGroupTag", "1")
                .containsEntry("TargetAlias", "alias-1");
        IscsiPdu r = security.response();
        assertThat(r.opcode()).isEqualTo(Opcode.LOGIN_RESPONSE);
        assertThat(r.isid()).isEqualTo(ISID);
        assertThat(r.initiatorTaskTag()).isEqualTo(0x77);
        assertThat(r.statSn()).isEqualTo(500);
        assertThat(r.expCmdSn()).isEqualTo(10);
        assertThat(r.maxCmdSn()).isEqualTo(10 + 128 - 1);
        assertThat(r.byte2()).isZero();
        assertThat(r.byte3()).isZero();

        LoginStep op = send(true, OPERATIONAL, FFP, keys("HeaderDigest", "None"));
        assertThat(op.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(flags(op)).isEqualTo(0x80 | OPERATIONAL << 2 | FFP);
        assertThat(op.response().statSn()).isEqualTo(501);
        assertThat(answers(op)).containsEntry("MaxRecvDataSegmentLength", "262144").doesNotContainKey("TargetPortalGroupTag");
        LoginOutcome outcome = op.outcome();
        assertThat(outcome.target().name()).isEqualTo(TARGET);
        assertThat(outcome.isid()).isEqualTo(ISID);
        assertThat(outcome.cid()).isEqualTo(3);
        assertThat(outcome.tsih()).isZero();
        assertThat(outcome.expCmdSn()).isEqualTo(10);
        assertThat(outcome.nextStatSn()).isEqualTo(502);
        assertThat(outcome.parameters().initiatorName()).isEqualTo(INITIATOR);
        assertThat(outcome.parameters().targetName()).isEqualTo(TARGET);
    }

    @Test
    void loginMayStartInOperationalStageWithoutChap() {
        LoginStep step = send(true, OPERATIONAL, FFP, firstKeys(TARGET));
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(answers(step)).containsKeys("TargetPortalGroupTag", "MaxRecvDataSegmentLength");
    }

    @Test
    void securityMayTransitDirectlyToFullFeature() {
        Map<String, String> first = firstKeys(TARGET);
        first.put("AuthMethod", "None");
        LoginStep step = send(true, SECURITY, FFP, first);
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(answers(step)).containsEntry("MaxRecvDataSegmentLength", "262144");
    }

    @Test
    void targetStaysInStageWhenInitiatorDoesNotTransit() {
        Map<String, String> first = firstKeys(TARGET);
        first.put("AuthMethod", "None");
        LoginStep step = send(false, SECURITY, 0, first);
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.CONTINUE);
        assertThat(flags(step) & 0x80).isZero();
        assertThat(status(send(true, OPERATIONAL, FFP, keys()))).isEqualTo(LoginStatus.INITIATOR_ERROR);
    }

    @Test
    void continuationJoinsTextSplitInsideAKey() {
        byte[] all = "InitiatorName=iqn.2024-01.org.example:host\0TargetName=iqn.2024-01.org.jtarget:disk1\0AuthMethod=None\0"
                .getBytes(StandardCharsets.US_ASCII);
        int cut = 50;
        LoginStep partial = send(request(0x40 | SECURITY << 2, Unpooled.copiedBuffer(all, 0, cut)));
        assertThat(partial.kind()).isEqualTo(LoginStep.Kind.CONTINUE);
        assertThat(partial.response().dataSegmentLength()).isZero();
        assertThat(flags(partial) & 0xc0).isZero();
        LoginStep rest = send(request(0x80 | SECURITY << 2 | OPERATIONAL, Unpooled.copiedBuffer(all, cut, all.length - cut)));
        assertThat(status(rest)).isZero();
        assertThat(answers(rest)).containsEntry("AuthMethod", "None");
        assertThat(rest.response().statSn()).isEqualTo(501);
    }

    @Test
    void continueWithTransitIsAnInitiatorError() {
        assertThat(status(send(request(0xc0 | SECURITY << 2 | OPERATIONAL, text(firstKeys(TARGET))))))
                .isEqualTo(LoginStatus.INITIATOR_ERROR);
    }

    @Test
    void transitBackwardsIsAnInitiatorError() {
        LoginStep step = send(true, OPERATIONAL, SECURITY, firstKeys(TARGET));
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FAILED);
        assertThat(status(step)).isEqualTo(LoginStatus.INITIATOR_ERROR);
    }

    // ---------- status codes ----------

    @Test
    void unknownTargetIsNotFound() {
        assertThat(status(send(true, SECURITY, OPERATIONAL, firstKeys("iqn.nothing")))).isEqualTo(LoginStatus.NOT_FOUND);
    }

    @Test
    void initiatorNotInAclIsAnAuthorizationFailure() {
        assertThat(status(send(true, SECURITY, OPERATIONAL, firstKeys("iqn.2024-01.org.jtarget:private"))))
                .isEqualTo(LoginStatus.AUTHORIZATION_FAILURE);
    }

    @Test
    void missingInitiatorNameIsAMissingParameter() {
        LoginStep step = send(true, SECURITY, OPERATIONAL, keys("TargetName", TARGET, "AuthMethod", "None"));
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FAILED);
        assertThat(status(step)).isEqualTo(LoginStatus.MISSING_PARAMETER);
        assertThat((int) step.response().bhs().getUnsignedByte(36)).isEqualTo(2);
        assertThat((int) step.response().bhs().getUnsignedByte(37)).isEqualTo(7);
    }

    @Test
    void normalSessionWithoutTargetNameIsAMissingParameter() {
        assertThat(status(send(true, SECURITY, OPERATIONAL, keys("InitiatorName", INITIATOR))))
                .isEqualTo(LoginStatus.MISSING_PARAMETER);
    }

    @Test
    void versionMinAboveZeroIsUnsupported() {
        IscsiPdu request = request(0x80 | SECURITY << 2 | OPERATIONAL, text(firstKeys(TARGET)));
        request.byte2(2);
        request.byte3(1);
        assertThat(status(send(request))).isEqualTo(LoginStatus.UNSUPPORTED_VERSION);
    }

    @Test
    void unknownSessionTypeIsNotSupported() {
        assertThat(status(send(true, SECURITY, OPERATIONAL, keys("InitiatorName", INITIATOR, "SessionType", "Weird"))))
                .isEqualTo(LoginStatus.SESSION_TYPE_NOT_SUPPORTED);
    }

    @Test
    void nonZeroTsihNeedsAnExistingSession() {
        IscsiPdu request = request(0x80 | OPERATIONAL << 2 | FFP, text(firstKeys(TARGET)));
        request.tsih(5);
        assertThat(status(send(request))).isEqualTo(LoginStatus.SESSION_DOES_NOT_EXIST);
    }

    @Test
    void connectionJoiningASessionAnswersLeadingOnlyKeysIrrelevant() {
        context.sessionExists = true;
        IscsiPdu request = request(0x80 | OPERATIONAL << 2 | FFP,
                text(keys("InitiatorName", INITIATOR, "TargetName", TARGET, "MaxBurstLength", "65536", "HeaderDigest", "CRC32C")));
        request.tsih(5);
        LoginStep step = send(request);
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(step.response().tsih()).isEqualTo(5);
        assertThat(answers(step)).containsEntry("MaxBurstLength", "Irrelevant").containsEntry("HeaderDigest", "CRC32C");
    }

    @Test
    void nonLoginPduIsInvalidDuringLogin() {
        IscsiPdu request = request(0, text(keys()));
        request.opcode(Opcode.SCSI_COMMAND);
        assertThat(status(send(request))).isEqualTo(LoginStatus.INVALID_DURING_LOGIN);
    }

    @Test
    void repeatedKeyIsAnInitiatorError() {
        Map<String, String> first = firstKeys(TARGET);
        first.put("MaxBurstLength", "65536");
        assertThat(status(send(false, OPERATIONAL, 0, first))).isZero();
        assertThat(status(send(true, OPERATIONAL, FFP, keys("MaxBurstLength", "65536")))).isEqualTo(LoginStatus.INITIATOR_ERROR);
    }

    @Test
    void malformedTextIsAnInitiatorError() {
        assertThat(status(send(request(0x80 | SECURITY << 2 | OPERATIONAL,
                Unpooled.copiedBuffer("InitiatorName\0", StandardCharsets.US_ASCII))))).isEqualTo(LoginStatus.INITIATOR_ERROR);
    }

    // ---------- key kinds ----------

    @Test
    void listKeyPicksTheFirstSupportedValueInInitiatorOrder() {
        LoginStep step = loginWith("HeaderDigest", "CRC32C,None", "DataDigest", "None,CRC32C", "TaskReporting", "FastAbort,RFC3720");
        assertThat(answers(step)).containsEntry("HeaderDigest", "CRC32C").containsEntry("DataDigest", "None")
                .containsEntry("TaskReporting", "RFC3720");
        assertThat(step.outcome().parameters().headerDigest()).isTrue();
        assertThat(step.outcome().parameters().dataDigest()).isFalse();
    }

    @Test
    void listKeyWithNothingSupportedIsRejected() {
        LoginStep step = loginWith("HeaderDigest", "MD5,SHA1");
        assertThat(answers(step)).containsEntry("HeaderDigest", "Reject");
        assertThat(step.outcome().parameters().headerDigest()).isFalse();
    }

    @Test
    void minKeyTakesTheSmaller() {
        LoginStep step = loginWith("MaxBurstLength", "16776192", "FirstBurstLength", "65536", "MaxConnections", "1",
                "MaxOutstandingR2T", "64", "DefaultTime2Retain", "0", "ErrorRecoveryLevel", "2", "ImmediateData", "Yes");
        assertThat(answers(step)).containsEntry("MaxBurstLength", "1048576").containsEntry("FirstBurstLength", "65536")
                .containsEntry("MaxConnections", "1").containsEntry("MaxOutstandingR2T", "8")
                .containsEntry("DefaultTime2Retain", "0").containsEntry("ErrorRecoveryLevel", "0");
        NegotiatedParameters p = step.outcome().parameters();
        assertThat(p.maxBurstLength()).isEqualTo(1048576);
        assertThat(p.firstBurstLength()).isEqualTo(65536);
        assertThat(p.maxOutstandingR2T()).isEqualTo(8);
        assertThat(p.errorRecoveryLevel()).isZero();
    }

    @Test
    void maxKeyTakesTheLarger() {
        assertThat(answers(loginWith("DefaultTime2Wait", "0"))).containsEntry("DefaultTime2Wait", "2");
        negotiator = new LoginNegotiator(context, LoginSettings.defaults(), new Random(1));
        LoginStep step = loginWith("DefaultTime2Wait", "7");
        assertThat(answers(step)).containsEntry("DefaultTime2Wait", "7");
        assertThat(step.outcome().parameters().defaultTime2Wait()).isEqualTo(7);
    }

    @Test
    void andKeyIsNoUnlessBothSayYes() {
        negotiator = new LoginNegotiator(context, settings(false, false, 1048576), new Random(1));
        LoginStep step = loginWith("ImmediateData", "Yes");
        assertThat(answers(step)).containsEntry("ImmediateData", "No");
        assertThat(step.outcome().parameters().immediateData()).isFalse();
        negotiator = new LoginNegotiator(context, LoginSettings.defaults(), new Random(1));
        assertThat(answers(loginWith("ImmediateData", "Yes"))).containsEntry("ImmediateData", "Yes");
    }

    @Test
    void orKeyIsYesIfEitherSaysYes() {
        LoginStep step = loginWith("InitialR2T", "No", "DataPDUInOrder", "No", "DataSequenceInOrder", "No");
        assertThat(answers(step)).containsEntry("InitialR2T", "No").containsEntry("DataPDUInOrder", "Yes")
                .containsEntry("DataSequenceInOrder", "Yes");
        assertThat(step.outcome().parameters().initialR2T()).isFalse();
        negotiator = new LoginNegotiator(context, settings(true, true, 1048576), new Random(1));
        assertThat(answers(loginWith("InitialR2T", "No"))).containsEntry("InitialR2T", "Yes");
    }

    @Test
    void declarativeKeyIsRecordedNotAnswered() {
        LoginStep step = loginWith("MaxRecvDataSegmentLength", "65536");
        assertThat(answers(step)).containsEntry("MaxRecvDataSegmentLength", "262144");
        NegotiatedParameters p = step.outcome().parameters();
        assertThat(p.initiatorMaxRecvDataSegmentLength()).isEqualTo(65536);
        assertThat(p.targetMaxRecvDataSegmentLength()).isEqualTo(262144);
    }

    @Test
    void unknownAndExtensionKeysAreNotUnderstood() {
        assertThat(answers(loginWith("X-com.example.Thing", "1", "X#org.example", "2", "FancyKey", "3")))
                .containsEntry("X-com.example.Thing", "NotUnderstood").containsEntry("X#org.example", "NotUnderstood")
                .containsEntry("FancyKey", "NotUnderstood");
    }

    // ---------- iSER's keys (RFC 7145 6): only over a transport that moves data by RDMA ----------

    @Test
    void iserKeysAreUnknownOverTcp() {
        LoginStep step = loginWith("RDMAExtensions", "Yes", "TargetRecvDataSegmentLength", "8192",
                "InitiatorRecvDataSegmentLength", "8192", "MaxOutstandingUnexpectedPDUs", "0");
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(answers(step)).containsEntry("RDMAExtensions", "NotUnderstood")
                .containsEntry("TargetRecvDataSegmentLength", "NotUnderstood")
                .containsEntry("InitiatorRecvDataSegmentLength", "NotUnderstood")
                .containsEntry("MaxOutstandingUnexpectedPDUs", "NotUnderstood");
    }

    @Test
    void tcpTargetOffersNoIserKey() {
        assertThat(answers(loginWith())).doesNotContainKeys("RDMAExtensions", "TargetRecvDataSegmentLength",
                "InitiatorRecvDataSegmentLength", "MaxOutstandingUnexpectedPDUs");
    }

    @Test
    void rdmaTransportNegotiatesIserKeys() {
        negotiator = new LoginNegotiator(context, LoginSettings.defaults(), true, new Random(1));
        LoginStep step = loginWith("RDMAExtensions", "Yes", "TargetRecvDataSegmentLength", "1048576",
                "InitiatorRecvDataSegmentLength", "65536", "MaxOutstandingUnexpectedPDUs", "8");
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(answers(step)).containsEntry("RDMAExtensions", "Yes")
                .containsEntry("TargetRecvDataSegmentLength", "262144") // Minimum with the target's limit
                .containsEntry("InitiatorRecvDataSegmentLength", "65536")
                .doesNotContainKey("MaxOutstandingUnexpectedPDUs"); // a declaration gets no answer
    }

    /**
     * RFC 7145 6.5: over iSER the target sends PDUs of at most InitiatorRecvDataSegmentLength, the
     * Minimum of the initiator's receive size and what the target can send (its send buffers are
     * sized like its receive buffers); a MaxRecvDataSegmentLength the initiator declares anyway is
     * irrelevant and sizes nothing.
     */
    @Test
    void overIserTheTargetSendsAtMostTheInitiatorRecvDataSegmentLength() {
        negotiator = new LoginNegotiator(context, ISER_SETTINGS, true, new Random(1));
        LoginStep step = loginWith("RDMAExtensions", "Yes", "InitiatorRecvDataSegmentLength", "262144",
                "MaxRecvDataSegmentLength", "262144", "FirstBurstLength", "8192");
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(answers(step)).containsEntry("InitiatorRecvDataSegmentLength", "8192");
        assertThat(step.outcome().parameters().initiatorMaxRecvDataSegmentLength()).isEqualTo(8192);

        negotiator = new LoginNegotiator(context, ISER_SETTINGS, true, new Random(1));
        step = loginWith("RDMAExtensions", "Yes", "InitiatorRecvDataSegmentLength", "4096",
                "MaxRecvDataSegmentLength", "262144", "FirstBurstLength", "8192");
        assertThat(step.outcome().parameters().initiatorMaxRecvDataSegmentLength()).isEqualTo(4096);
    }

    @Test
    void rdmaTransportOffersRdmaExtensionsAndWaitsForTheAnswer() {
        negotiator = new LoginNegotiator(context, LoginSettings.defaults(), true, new Random(1));
        LoginStep offer = loginWith();
        assertThat(offer.kind()).isEqualTo(LoginStep.Kind.CONTINUE);
        assertThat(answers(offer)).containsEntry("RDMAExtensions", "Yes");
        LoginStep done = send(true, OPERATIONAL, FFP, keys("RDMAExtensions", "Yes"));
        assertThat(done.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
    }

    @Test
    void rdmaExtensionsIsIrrelevantInDiscovery() {
        negotiator = new LoginNegotiator(context, LoginSettings.defaults(), true, new Random(1));
        LoginStep step = send(true, SECURITY, FFP, keys("InitiatorName", INITIATOR, "SessionType", "Discovery",
                "AuthMethod", "None", "RDMAExtensions", "Yes"));
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(answers(step)).containsEntry("RDMAExtensions", "Irrelevant");
    }

    @Test
    void badValuesAreRejectedAndTheDefaultStays() {
        LoginStep step = loginWith("MaxBurstLength", "lots", "MaxOutstandingR2T", "0", "InitialR2T", "Maybe",
                "MaxRecvDataSegmentLength", "100", "DefaultTime2Wait", "3601");
        assertThat(answers(step)).containsEntry("MaxBurstLength", "Reject").containsEntry("MaxOutstandingR2T", "Reject")
                .containsEntry("InitialR2T", "Reject").containsEntry("MaxRecvDataSegmentLength", "Reject")
                .containsEntry("DefaultTime2Wait", "Reject");
        NegotiatedParameters p = step.outcome().parameters();
        assertThat(p.maxBurstLength()).isEqualTo(262144);
        assertThat(p.initiatorMaxRecvDataSegmentLength()).isEqualTo(8192);
    }

    @Test
    void targetOnlyAndFullFeatureKeysAreRefused() {
        assertThat(answers(loginWith("TargetAlias", "x", "SendTargets", "All")))
                .containsEntry("TargetAlias", "Reject").containsEntry("SendTargets", "Irrelevant");
    }

    @Test
    void obsoleteMarkerKeysAreAnsweredNoOrReject() {
        assertThat(answers(loginWith("OFMarker", "Yes", "IFMarker", "No", "OFMarkInt", "2048~8192")))
                .containsEntry("OFMarker", "No").containsEntry("IFMarker", "No").containsEntry("OFMarkInt", "Reject");
    }

    @Test
    void unofferedKeysGetRfcDefaultsNotTargetPreferences() {
        NegotiatedParameters p = loginWith().outcome().parameters();
        assertThat(p.sessionType()).isEqualTo("Normal");
        assertThat(p.headerDigest()).isFalse();
        assertThat(p.dataDigest()).isFalse();
        assertThat(p.maxConnections()).isEqualTo(1);
        assertThat(p.initialR2T()).isTrue();
        assertThat(p.immediateData()).isTrue();
        assertThat(p.initiatorMaxRecvDataSegmentLength()).isEqualTo(8192);
        assertThat(p.maxBurstLength()).isEqualTo(262144);
        assertThat(p.firstBurstLength()).isEqualTo(65536);
        assertThat(p.defaultTime2Wait()).isEqualTo(2);
        assertThat(p.defaultTime2Retain()).isEqualTo(20);
        assertThat(p.maxOutstandingR2T()).isEqualTo(1);
        assertThat(p.dataPduInOrder()).isTrue();
        assertThat(p.dataSequenceInOrder()).isTrue();
        assertThat(p.errorRecoveryLevel()).isZero();
    }

    @Test
    void targetOffersWhatItCannotAcceptAsDefaultAndWaitsForTheAnswer() {
        negotiator = new LoginNegotiator(context, settings(false, false, 65536), new Random(1));
        Map<String, String> first = firstKeys(TARGET);
        first.put("AuthMethod", "None");
        send(true, SECURITY, OPERATIONAL, first);
        LoginStep offer = send(true, OPERATIONAL, FFP, keys("MaxRecvDataSegmentLength", "65536"));
        assertThat(offer.kind()).isEqualTo(LoginStep.Kind.CONTINUE);
        assertThat(flags(offer) & 0x80).isZero();
        assertThat(answers(offer)).containsEntry("MaxBurstLength", "65536").containsEntry("ImmediateData", "No")
                .doesNotContainKey("FirstBurstLength");
        LoginStep done = send(true, OPERATIONAL, FFP, keys("MaxBurstLength", "65536", "ImmediateData", "No"));
        assertThat(done.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(answers(done)).isEmpty();
        assertThat(done.outcome().parameters().maxBurstLength()).isEqualTo(65536);
        assertThat(done.outcome().parameters().immediateData()).isFalse();
    }

    @Test
    void firstBurstLengthIsIrrelevantWithInitialR2TAndNoImmediateData() {
        assertThat(answers(loginWith("InitialR2T", "Yes", "ImmediateData", "No", "FirstBurstLength", "4096")))
                .containsEntry("FirstBurstLength", "Irrelevant");
    }

    /**
     * A target whose first burst is below the RFC default offers FirstBurstLength itself; when the
     * initiator's own offer was answered Irrelevant, the key must not be offered again in the same
     * text (RFC 7143 6.1: a key once per text; seen over iSER as a login failing 0x0200).
     */
    @Test
    void anIrrelevantFirstBurstLengthIsNotAlsoOfferedByTheTarget() {
        negotiator = new LoginNegotiator(context, settings(false, true, 16384), new Random(1));
        Map<String, String> first = firstKeys(TARGET);
        first.put("AuthMethod", "None");
        send(true, SECURITY, OPERATIONAL, first);
        LoginStep step = send(true, OPERATIONAL, FFP, keys("InitialR2T", "Yes", "ImmediateData", "No",
                "FirstBurstLength", "65536", "MaxBurstLength", "16384"));
        List<String> names = TextParameters.parse(step.response().data()).stream().map(Map.Entry::getKey).toList();
        assertThat(names).as("each key once").doesNotHaveDuplicates().contains("FirstBurstLength");
        assertThat(answers(step)).containsEntry("FirstBurstLength", "Irrelevant");
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
    }

    @Test
    void discoverySessionNeedsNoTargetAndFindsSessionKeysIrrelevant() {
        LoginStep step = send(true, SECURITY, FFP, keys("InitiatorName", INITIATOR, "SessionType", "Discovery",
                "AuthMethod", "None", "MaxBurstLength", "65536", "HeaderDigest", "None"));
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
        assertThat(answers(step)).containsEntry("MaxBurstLength", "Irrelevant").containsEntry("HeaderDigest", "None")
                .doesNotContainKey("TargetPortalGroupTag");
        assertThat(step.outcome().target()).isNull();
        assertThat(step.outcome().parameters().discovery()).isTrue();
    }

    // ---------- authentication ----------

    /** AuthMethod=CHAP, then CHAP_A={@code offer}; returns the target's CHAP_A, CHAP_I and CHAP_C. */
    private Map<String, String> chapStart(String target, String offer) {
        Map<String, String> first = firstKeys(target);
        first.put("AuthMethod", "CHAP,None");
        LoginStep step = send(false, SECURITY, 0, first);
        assertThat(answers(step)).containsEntry("AuthMethod", "CHAP");
        LoginStep challenge = send(false, SECURITY, 0, keys("CHAP_A", offer));
        assertThat(status(challenge)).isZero();
        Map<String, String> a = answers(challenge);
        assertThat(a).containsKeys("CHAP_A", "CHAP_I", "CHAP_C");
        return a;
    }

    private Map<String, String> chapStart(String target) {
        // MD5 alone, as libiscsi offers it: still chosen although the target prefers stronger ones.
        Map<String, String> a = chapStart(target, "5");
        assertThat(a).containsEntry("CHAP_A", "5");
        assertThat(a.get("CHAP_C")).startsWith("0x").hasSize(2 + 32);
        return a;
    }

    /** RFC 1994 4.1, computed here independently of the target's code. */
    private static byte[] md5(int id, String secret, byte[] challenge) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update((byte) id);
            md5.update(secret.getBytes(StandardCharsets.UTF_8));
            return md5.digest(challenge);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static String md5Hex(int id, String secret, byte[] challenge) {
        return "0x" + HexFormat.of().formatHex(md5(id, secret, challenge));
    }

    private static byte[] challengeOf(Map<String, String> a) {
        return HexFormat.of().parseHex(a.get("CHAP_C").substring(2));
    }

    @Test
    void oneWayChapWithTheRightResponseAuthenticates() {
        Map<String, String> a = chapStart(CHAP_TARGET);
        String r = md5Hex(Integer.parseInt(a.get("CHAP_I")), "secret-of-alice", challengeOf(a));
        LoginStep step = send(true, SECURITY, OPERATIONAL, keys("CHAP_N", "alice", "CHAP_R", r));
        assertThat(status(step)).isZero();
        assertThat(flags(step)).isEqualTo(0x80 | SECURITY << 2 | OPERATIONAL);
        assertThat(answers(step)).isEmpty();
        assertThat(send(true, OPERATIONAL, FFP, keys()).kind()).isEqualTo(LoginStep.Kind.FULL_FEATURE);
    }

    @Test
    void openIscsiStyleOfferGetsSha256AndItsAnswerAuthenticates() throws Exception {
        Map<String, String> a = chapStart(CHAP_TARGET, "7,6,5");
        assertThat(a).containsEntry("CHAP_A", "7");
        assertThat(challengeOf(a)).hasSize(32);
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        sha256.update((byte) Integer.parseInt(a.get("CHAP_I")));
        sha256.update("secret-of-alice".getBytes(StandardCharsets.UTF_8));
        byte[] r = sha256.digest(challengeOf(a));
        LoginStep step = send(true, SECURITY, OPERATIONAL, keys("CHAP_N", "alice", "CHAP_R", "0x" + HexFormat.of().formatHex(r)));
        assertThat(status(step)).isZero();
        assertThat(flags(step) & 0x80).isNotZero();
    }

    @Test
    void anMd5SizedAnswerToSha256IsRefusedAndTheReasonKept() {
        Map<String, String> a = chapStart(CHAP_TARGET, "7,5");
        String r = md5Hex(Integer.parseInt(a.get("CHAP_I")), "secret-of-alice", challengeOf(a));
        assertThat(status(send(true, SECURITY, OPERATIONAL, keys("CHAP_N", "alice", "CHAP_R", r))))
                .isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        assertThat(negotiator.refusalReason()).startsWith("CHAP exchange failed: CHAP_R has 16 bytes");
    }

    @Test
    void base64ChapResponseIsAccepted() {
        Map<String, String> a = chapStart(CHAP_TARGET);
        byte[] r = md5(Integer.parseInt(a.get("CHAP_I")), "secret-of-alice", challengeOf(a));
        LoginStep step = send(true, SECURITY, OPERATIONAL,
                keys("CHAP_N", "alice", "CHAP_R", "0b" + java.util.Base64.getEncoder().encodeToString(r)));
        assertThat(status(step)).isZero();
    }

    @Test
    void wrongChapResponseIsAnAuthenticationFailure() {
        Map<String, String> a = chapStart(CHAP_TARGET);
        String r = md5Hex(Integer.parseInt(a.get("CHAP_I")), "wrong-secret", challengeOf(a));
        LoginStep step = send(true, SECURITY, OPERATIONAL, keys("CHAP_N", "alice", "CHAP_R", r));
        assertThat(step.kind()).isEqualTo(LoginStep.Kind.FAILED);
        assertThat(status(step)).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
    }

    @Test
    void wrongChapNameIsAnAuthenticationFailure() {
        Map<String, String> a = chapStart(CHAP_TARGET);
        String r = md5Hex(Integer.parseInt(a.get("CHAP_I")), "secret-of-alice", challengeOf(a));
        assertThat(status(send(true, SECURITY, OPERATIONAL, keys("CHAP_N", "mallory", "CHAP_R", r))))
                .isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
    }

    @Test
    void mutualChapAnswersWithTheTargetSecret() {
        Map<String, String> a = chapStart(CHAP_TARGET);
        String r = md5Hex(Integer.parseInt(a.get("CHAP_I")), "secret-of-alice", challengeOf(a));
        byte[] ours = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
        LoginStep step = send(true, SECURITY, OPERATIONAL,
                keys("CHAP_N", "alice", "CHAP_R", r, "CHAP_I", "42", "CHAP_C", "0x00112233445566778899aabbccddeeff"));
        assertThat(status(step)).isZero();
        assertThat(flags(step) & 0x80).isNotZero();
        assertThat(answers(step)).containsEntry("CHAP_N", "tgt").containsEntry("CHAP_R", md5Hex(42, "secret-of-target", ours));
    }

    @Test
    void mutualChapWithoutTargetSecretIsRefused() {
        Map<String, String> a = chapStart("iqn.2024-01.org.jtarget:oneway");
        String r = md5Hex(Integer.parseInt(a.get("CHAP_I")), "bobsecret", challengeOf(a));
        Map<String, String> k = keys("CHAP_N", "bob", "CHAP_R", r, "CHAP_I", "1", "CHAP_C", "0x0102030405060708");
        assertThat(status(send(true, SECURITY, OPERATIONAL, k))).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
    }

    @Test
    void reflectedChallengeIsRefused() {
        Map<String, String> a = chapStart(CHAP_TARGET);
        String r = md5Hex(Integer.parseInt(a.get("CHAP_I")), "secret-of-alice", challengeOf(a));
        Map<String, String> k = keys("CHAP_N", "alice", "CHAP_R", r, "CHAP_I", a.get("CHAP_I"), "CHAP_C", a.get("CHAP_C"));
        assertThat(status(send(true, SECURITY, OPERATIONAL, k))).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        assertThat(negotiator.refusalReason()).contains("reflected");
    }

    @Test
    void unsupportedChapAlgorithmIsAnAuthenticationFailure() {
        Map<String, String> first = firstKeys(CHAP_TARGET);
        first.put("AuthMethod", "CHAP");
        send(false, SECURITY, 0, first);
        assertThat(status(send(false, SECURITY, 0, keys("CHAP_A", "9,55")))).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
    }

    @Test
    void chapTargetRefusesAuthMethodNone() {
        Map<String, String> first = firstKeys(CHAP_TARGET);
        first.put("AuthMethod", "None");
        assertThat(status(send(true, SECURITY, OPERATIONAL, first))).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
    }

    @Test
    void skippingSecurityToAChapTargetIsAnAuthenticationFailure() {
        assertThat(status(send(true, OPERATIONAL, FFP, firstKeys(CHAP_TARGET)))).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
    }

    @Test
    void leavingSecurityBeforeChapCompletesDoesNotTransit() {
        Map<String, String> first = firstKeys(CHAP_TARGET);
        first.put("AuthMethod", "CHAP");
        LoginStep step = send(true, SECURITY, OPERATIONAL, first);
        assertThat(status(step)).isZero();
        assertThat(flags(step) & 0x80).isZero();
    }

    @Test
    void chapKeysInOperationalStageAreAnInitiatorError() {
        Map<String, String> first = firstKeys(TARGET);
        first.put("CHAP_A", "5");
        assertThat(status(send(true, OPERATIONAL, FFP, first))).isEqualTo(LoginStatus.INITIATOR_ERROR);
    }

    @Test
    void authMethodNoneInOperationalStageIsAnsweredNoneWhenNoChapIsNeeded() {
        Map<String, String> first = firstKeys(TARGET);
        first.put("AuthMethod", "None");
        LoginStep step = send(true, OPERATIONAL, FFP, first);
        assertThat(status(step)).isEqualTo(LoginStatus.SUCCESS);
        assertThat(answers(step)).containsEntry("AuthMethod", "None");
    }

    @Test
    void failureResponseCarriesStatusAndNoTransit() {
        LoginStep step = send(true, SECURITY, OPERATIONAL, firstKeys("iqn.none"));
        assertThat(flags(step) & 0x80).isZero();
        assertThat(step.outcome()).isNull();
        assertThat(step.response().initiatorTaskTag()).isEqualTo(0x77);
        assertThat(send(true, SECURITY, OPERATIONAL, firstKeys(TARGET)).kind()).isEqualTo(LoginStep.Kind.FAILED);
    }

    /** As an iSER portal has them: receive (and send) buffers of 8192 data bytes. */
    private static final LoginSettings ISER_SETTINGS = new LoginSettings(8192, 1048576, 8192, 8, 8, true, false, 2, 20,
            128);

    private static LoginSettings settings(boolean immediateData, boolean initialR2T, int maxBurst) {
        return new LoginSettings(262144, maxBurst, Math.min(262144, maxBurst), 8, 8, immediateData, initialR2T, 2, 20, 128);
    }
}
