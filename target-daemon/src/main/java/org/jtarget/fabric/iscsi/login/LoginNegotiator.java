package org.jtarget.fabric.iscsi.login;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;

import java.io.ByteArrayOutputStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The login phase of one connection (RFC 7143 6, 11.12-11.13): stages (security, operational,
 * full feature), CSG/NSG/T/C handling, AuthMethod and CHAP, operational key negotiation, target
 * lookup and ACL, login status classes. The session layer sets the TSIH of a new session on the
 * final response before sending it.
 *
 * <pre>
 *  Login Request / Response byte 1:  |T|C|.|.|CSG|NSG|   T=transit, C=continue,
 *  stages: 0 SecurityNegotiation, 1 LoginOperationalNegotiation, 3 FullFeaturePhase
 *  Login Response bytes 36/37: Status-Class, Status-Detail (RFC 7143 11.13.5)
 * </pre>
 *
 * Rules kept here: StatSN starts at the first request's ExpStatSN and grows by one per response
 * (RFC 7143 11.13.4); ExpCmdSN is the request's CmdSN (login requests are immediate) and MaxCmdSN
 * opens the command window; the target transits only when the initiator asked (T=1) and it is
 * ready (authenticated, no unanswered offers); a request with C=1 gets an empty response and its
 * text is joined with what follows (RFC 7143 6.2, 11.12.2). For a connection added to an existing
 * session (TSIH != 0) the leading-only keys are answered Irrelevant: the caller keeps the
 * session's values for those.
 * Not thread-safe: one instance per connection, used on its event loop.
 */
public final class LoginNegotiator {

    public static final int STAGE_SECURITY = 0;
    public static final int STAGE_OPERATIONAL = 1;
    public static final int STAGE_FULL_FEATURE = 3;
    public static final int TRANSIT_BIT = 0x80;
    public static final int CONTINUE_BIT = 0x40;
    /** Login Request: CID (2 bytes) in word 20. */
    public static final int CID_OFFSET = 20;
    public static final int STATUS_CLASS_OFFSET = 36;
    public static final int STATUS_DETAIL_OFFSET = 37;
    /** Upper bound of the text joined across C=1 requests; more is an initiator error. */
    static final int MAX_TEXT_LENGTH = 64 * 1024;

    private final LoginContext context;
    private final LoginSettings settings;
    /** The transport moves data by RDMA: iSER's keys are known (RFC 7145 6). */
    private final boolean rdma;
    private final Random random;
    private final OperationalNegotiation operational;
    private final Set<String> seenKeys = new HashSet<>();
    private String refusal;
    private final ByteArrayOutputStream text = new ByteArrayOutputStream();

    private boolean started;
    private boolean identified;
    private boolean failed;
    private int stage = -1;
    private long isid;
    private int tsih;
    private int cid;
    private int statSn;

    private String initiatorName;
    private String initiatorAlias;
    private String targetName;
    private String sessionType;
    private IscsiTargetDefinition target;
    private ChapAuthenticator chap;
    private String authMethod;
    private boolean authenticated;
    private boolean declaredMaxRecv;
    private boolean offersMade;

    /** A login over TCP. */
    public LoginNegotiator(LoginContext context, LoginSettings settings) {
        this(context, settings, false);
    }

    /** @param rdma true if the connection's transport moves data by RDMA (iSER's keys are negotiated) */
    public LoginNegotiator(LoginContext context, LoginSettings settings, boolean rdma) {
        this(context, settings, rdma, new SecureRandom());
    }

    /** With a given source of CHAP identifiers and challenges (tests). */
    LoginNegotiator(LoginContext context, LoginSettings settings, Random random) {
        this(context, settings, false, random);
    }

    LoginNegotiator(LoginContext context, LoginSettings settings, boolean rdma, Random random) {
        this.context = context;
        this.settings = settings;
        this.rdma = rdma;
        this.random = random;
        this.operational = new OperationalNegotiation(settings, rdma);
    }

    /** Why the login was refused (for the admin's log), or null while it has not been. */
    public String refusalReason() {
        return refusal;
    }

    /** AuthMethod offered in the operational stage, for a target without CHAP, with None among the offers. */
    private boolean acceptsLateAuthMethodNone(String key, String offer) {
        return key.equals("AuthMethod") && chap == null && List.of(offer.split(",")).contains("None");
    }

    /** Records why a login is refused and returns its status (RFC 7143 11.13.5). */
    private int refuse(int status, String why) {
        if (refusal == null) {
            refusal = why;
        }
        return status;
    }

    /** Handles one Login Request (borrows it) and returns the response and what to do next. */
    public LoginStep handle(IscsiPdu request, ByteBufAllocator alloc) {
        int status = failed ? LoginStatus.INITIATOR_ERROR : checkHeader(request);
        if (status != LoginStatus.SUCCESS) {
            return fail(request, status, alloc);
        }
        int csg = (request.flags() >> 2) & 3;
        if (!appendText(request.data())) {
            return fail(request, refuse(LoginStatus.INITIATOR_ERROR, "login text too long"), alloc);
        }
        if ((request.flags() & CONTINUE_BIT) != 0) {
            // RFC 7143 6.2: a partial text is acknowledged with an empty response.
            return new LoginStep(response(request, csg << 2, List.of(), LoginStatus.SUCCESS, alloc),
                    LoginStep.Kind.CONTINUE, null);
        }
        List<Map.Entry<String, String>> pairs = TextParameters.parse(Unpooled.wrappedBuffer(text.toByteArray()));
        text.reset();
        if (pairs == null) {
            return fail(request, refuse(LoginStatus.INITIATOR_ERROR, "malformed login text"), alloc);
        }
        List<Map.Entry<String, String>> answer = new ArrayList<>();
        status = negotiate(request, pairs, csg, answer);
        if (status != LoginStatus.SUCCESS) {
            return fail(request, status, alloc);
        }
        return step(request, csg, answer, alloc);
    }

    /** Decides on transit and builds the response of a successfully handled request. */
    private LoginStep step(IscsiPdu request, int csg, List<Map.Entry<String, String>> answer, ByteBufAllocator alloc) {
        boolean t = (request.flags() & TRANSIT_BIT) != 0;
        int nsg = request.flags() & 3;
        if (t && csg == STAGE_SECURITY && !authenticated && authMethod == null) {
            // Leaving security without having negotiated AuthMethod: only fine if none is needed.
            if (chap != null) {
                return fail(request, refuse(LoginStatus.AUTHENTICATION_FAILURE, "left the security stage without authenticating"), alloc);
            }
            authenticated = true;
        }
        boolean pendingBefore = operational.waitingForAnswers() && offersMade;
        if (csg == STAGE_OPERATIONAL || (t && nsg == STAGE_FULL_FEATURE && authenticated)) {
            declareOperational(answer);
        }
        if (t && csg == STAGE_OPERATIONAL && pendingBefore && operational.waitingForAnswers()) {
            return fail(request, refuse(LoginStatus.INITIATOR_ERROR, "operational offers not answered before transit"), alloc); // RFC 7143 6.2: offers must be answered
        }
        boolean transit = t && (csg != STAGE_SECURITY || authenticated) && !operational.waitingForAnswers();
        int flags = (transit ? TRANSIT_BIT | nsg : 0) | csg << 2;
        stage = transit ? nsg : csg;
        IscsiPdu response = response(request, flags, answer, LoginStatus.SUCCESS, alloc);
        if (transit && nsg == STAGE_FULL_FEATURE) {
            LoginOutcome outcome = new LoginOutcome(target, parameters(), isid, tsih, cid, request.cmdSn(), statSn);
            return new LoginStep(response, LoginStep.Kind.FULL_FEATURE, outcome);
        }
        return new LoginStep(response, LoginStep.Kind.CONTINUE, null);
    }

    /** The target's declarations and offers, made once when operational negotiation starts. */
    private void declareOperational(List<Map.Entry<String, String>> answer) {
        boolean rejectedTheirs = answer.stream().anyMatch(e -> e.getKey().equals("MaxRecvDataSegmentLength"));
        if (!declaredMaxRecv && !rejectedTheirs) {
            // RFC 7143 13.12: each side declares its own MaxRecvDataSegmentLength. (Not in the same
            // response as a Reject of the initiator's: one key once per text; without a declaration
            // the initiator assumes 8192, which the target accepts.)
            answer.add(Map.entry("MaxRecvDataSegmentLength", Integer.toString(settings.maxRecvDataSegmentLength())));
            declaredMaxRecv = true;
        }
        if (!offersMade) {
            answer.addAll(operational.targetOffers(discovery(), tsih == 0));
            offersMade = true;
        }
    }

    /** Header checks (RFC 7143 11.12): opcode, version, stage transitions, stable ISID/TSIH/CID. */
    private int checkHeader(IscsiPdu request) {
        if (request.opcode() != Opcode.LOGIN_REQUEST) {
            return LoginStatus.INVALID_DURING_LOGIN;
        }
        int cidNow = request.bhs().getUnsignedShort(CID_OFFSET);
        if (!started) {
            started = true;
            isid = request.isid();
            tsih = request.tsih();
            cid = cidNow;
            statSn = request.expStatSn();
            // RFC 7143 11.12.4: the only version is 0; Version-min above it cannot be served.
            if (request.byte3() > 0) {
                return LoginStatus.UNSUPPORTED_VERSION;
            }
        } else if (request.isid() != isid || request.tsih() != tsih || cidNow != cid) {
            return refuse(LoginStatus.INITIATOR_ERROR, "ISID, TSIH or CID changed during login");
        }
        int flags = request.flags();
        int csg = (flags >> 2) & 3;
        int nsg = flags & 3;
        boolean t = (flags & TRANSIT_BIT) != 0;
        boolean c = (flags & CONTINUE_BIT) != 0;
        if ((t && c) || csg > STAGE_OPERATIONAL || (t && (nsg <= csg || nsg == 2))) {
            return refuse(LoginStatus.INITIATOR_ERROR, "invalid stage transition (T/C/CSG/NSG)");
        }
        if (stage >= 0 && csg != stage) {
            return refuse(LoginStatus.INITIATOR_ERROR, "request for a stage other than the current one");
        }
        return LoginStatus.SUCCESS;
    }

    private boolean appendText(ByteBuf data) {
        if (text.size() + data.readableBytes() > MAX_TEXT_LENGTH) {
            return false;
        }
        byte[] bytes = new byte[data.readableBytes()];
        data.getBytes(data.readerIndex(), bytes);
        text.writeBytes(bytes);
        return true;
    }

    /** Negotiates one complete text: session keys first, then security, then operational keys. */
    private int negotiate(IscsiPdu request, List<Map.Entry<String, String>> pairs, int csg,
                          List<Map.Entry<String, String>> answer) {
        Map<String, String> sessionKeys = new HashMap<>();
        for (Map.Entry<String, String> pair : pairs) {
            KeyRule rule = OperationalKeys.find(pair.getKey(), rdma);
            if (rule != null && rule.kind() == KeyKind.SESSION) {
                // Declarations, not negotiations: some initiators (jSCSI) repeat them in every
                // request; laterSessionKeys accepts a repeat only with the same value.
                if (sessionKeys.put(pair.getKey(), pair.getValue()) != null) {
                    return refuse(LoginStatus.INITIATOR_ERROR, "session key declared twice in one text");
                }
                continue;
            }
            boolean answersOffer = operational.pendingOffer(pair.getKey());
            if (!answersOffer && !seenKeys.add(pair.getKey())) {
                return refuse(LoginStatus.INITIATOR_ERROR, "key negotiated twice"); // RFC 7143 6.2: no key may be negotiated twice
            }
        }
        int status = identified ? laterSessionKeys(sessionKeys) : identify(sessionKeys, csg);
        if (status != LoginStatus.SUCCESS) {
            return status;
        }
        if (target != null && !identified) {
            // RFC 7143 13.9: TargetPortalGroupTag in the first response of a Normal session.
            answer.add(Map.entry("TargetPortalGroupTag", Integer.toString(context.portal().portalGroupTag())));
            if (target.alias() != null) {
                answer.add(Map.entry("TargetAlias", target.alias()));
            }
        }
        identified = true;
        return negotiateKeys(pairs, csg, answer);
    }

    /** Security and operational keys, answered in the order offered (FirstBurstLength last). */
    private int negotiateKeys(List<Map.Entry<String, String>> pairs, int csg, List<Map.Entry<String, String>> answer) {
        Map<String, String> chapKeys = new LinkedHashMap<>();
        String authOffer = null;
        String firstBurst = null;
        for (Map.Entry<String, String> pair : pairs) {
            String key = pair.getKey();
            KeyRule rule = OperationalKeys.find(key, rdma);
            if (rule == null) {
                answer.add(Map.entry(key, OperationalKeys.NOT_UNDERSTOOD)); // RFC 7143 6.2: unknown, X-, X#
                continue;
            }
            switch (rule.kind()) {
                case SESSION -> { }
                case SECURITY -> {
                    if (csg != STAGE_SECURITY) {
                        if (acceptsLateAuthMethodNone(key, pair.getValue())) {
                            // jSCSI starts in the operational stage and still offers AuthMethod=None:
                            // answer with what is in force instead of failing an otherwise valid login.
                            answer.add(Map.entry(key, "None"));
                            continue;
                        }
                        // RFC 7143 6.3: security keys belong to the security stage
                        return refuse(LoginStatus.INITIATOR_ERROR, "security key outside the security stage");
                    }
                    if (key.equals("AuthMethod")) {
                        authOffer = pair.getValue();
                    } else {
                        chapKeys.put(key, pair.getValue());
                    }
                }
                case TARGET_ONLY, OBSOLETE_REJECT -> answer.add(Map.entry(key, OperationalKeys.REJECT));
                case FULL_FEATURE_ONLY -> answer.add(Map.entry(key, OperationalKeys.IRRELEVANT));
                case OBSOLETE_NO -> answer.add(Map.entry(key, OperationalKeys.NO));
                default -> {
                    if (key.equals("FirstBurstLength")) {
                        firstBurst = pair.getValue();
                    } else {
                        addAnswer(answer, key, operational.accept(rule, pair.getValue(), discovery(), tsih == 0));
                    }
                }
            }
        }
        if (firstBurst != null) {
            answerFirstBurst(firstBurst, answer);
        }
        return security(authOffer, chapKeys, answer);
    }

    /** RFC 7143 13.14: FirstBurstLength is irrelevant when InitialR2T=Yes and ImmediateData=No. */
    private void answerFirstBurst(String value, List<Map.Entry<String, String>> answer) {
        KeyRule rule = OperationalKeys.find("FirstBurstLength");
        if (operational.yes("InitialR2T") && !operational.yes("ImmediateData") && !operational.pendingOffer(rule.name())) {
            answer.add(Map.entry(rule.name(), operational.irrelevant(rule)));
            return;
        }
        addAnswer(answer, rule.name(), operational.accept(rule, value, discovery(), tsih == 0));
    }

    private static void addAnswer(List<Map.Entry<String, String>> answer, String key, String value) {
        if (value != null) {
            answer.add(Map.entry(key, value));
        }
    }

    /** AuthMethod (RFC 7143 12.1) and the CHAP exchange. */
    private int security(String authOffer, Map<String, String> chapKeys, List<Map.Entry<String, String>> answer) {
        if (authOffer != null) {
            authMethod = chooseAuthMethod(authOffer);
            if (authMethod == null) {
                return refuse(LoginStatus.AUTHENTICATION_FAILURE, "no acceptable AuthMethod offered");
            }
            answer.add(Map.entry("AuthMethod", authMethod));
            authenticated = authMethod.equals("None");
        }
        if (chapKeys.isEmpty()) {
            return LoginStatus.SUCCESS;
        }
        if (!"CHAP".equals(authMethod) || authOffer != null) {
            return refuse(LoginStatus.INITIATOR_ERROR, "CHAP keys before CHAP was agreed"); // CHAP keys before CHAP was agreed
        }
        int status = chap.onKeys(chapKeys, answer);
        if (status != LoginStatus.SUCCESS) {
            String why = chap.failureReason() != null ? chap.failureReason() : "CHAP key after the exchange ended";
            return refuse(status, "CHAP exchange failed: " + why);
        }
        authenticated = chap.done();
        return status;
    }

    /** The first of the initiator's methods the target accepts: CHAP if it has secrets, else None. */
    private String chooseAuthMethod(String offer) {
        String ours = chap != null ? "CHAP" : "None";
        for (String method : offer.split(",")) {
            if (method.equals(ours)) {
                return ours;
            }
        }
        return null;
    }

    /** First text of the login: who the initiator is, which session type and target (RFC 7143 6.3, 13.21). */
    private int identify(Map<String, String> keys, int csg) {
        initiatorName = keys.get("InitiatorName");
        initiatorAlias = keys.get("InitiatorAlias");
        targetName = keys.get("TargetName");
        sessionType = keys.getOrDefault("SessionType", "Normal");
        if (initiatorName == null || initiatorName.isEmpty()) {
            return refuse(LoginStatus.MISSING_PARAMETER, "InitiatorName missing");
        }
        if (!sessionType.equals("Normal") && !sessionType.equals("Discovery")) {
            return LoginStatus.SESSION_TYPE_NOT_SUPPORTED;
        }
        if (!discovery()) {
            int status = findTarget();
            if (status != LoginStatus.SUCCESS) {
                return status;
            }
        }
        if (tsih != 0 && !context.sessionExists(initiatorName, isid, tsih, targetName)) {
            return LoginStatus.SESSION_DOES_NOT_EXIST;
        }
        if (target != null && target.chap() != null) {
            chap = new ChapAuthenticator(target.chap(), random);
        }
        if (csg == STAGE_OPERATIONAL) {
            // The initiator skipped the security stage: fine only for a target without CHAP.
            if (chap != null) {
                return refuse(LoginStatus.AUTHENTICATION_FAILURE, "authentication failed");
            }
            authenticated = true;
        }
        return LoginStatus.SUCCESS;
    }

    private int findTarget() {
        if (targetName == null || targetName.isEmpty()) {
            return refuse(LoginStatus.MISSING_PARAMETER, "TargetName missing");
        }
        target = context.findTarget(targetName);
        if (target == null) {
            return refuse(LoginStatus.NOT_FOUND, "target not found");
        }
        if (!target.allows(initiatorName)) {
            return refuse(LoginStatus.AUTHORIZATION_FAILURE, "initiator not in the target's ACL");
        }
        targetName = target.name();
        return LoginStatus.SUCCESS;
    }

    /**
     * Session keys after the first text: InitiatorAlias may still come; InitiatorName, TargetName
     * and SessionType may only be repeated unchanged (RFC 7143 6.2: a declaration cannot change).
     */
    private int laterSessionKeys(Map<String, String> keys) {
        for (Map.Entry<String, String> key : keys.entrySet()) {
            String first = switch (key.getKey()) {
                case "InitiatorAlias" -> key.getValue();
                case "InitiatorName" -> initiatorName;
                case "TargetName" -> targetName == null ? key.getValue() : targetName;
                case "SessionType" -> sessionType;
                default -> null;
            };
            if (first == null || !first.equalsIgnoreCase(key.getValue())) {
                return refuse(LoginStatus.INITIATOR_ERROR, "session key changed during login");
            }
        }
        if (keys.containsKey("InitiatorAlias")) {
            initiatorAlias = keys.get("InitiatorAlias");
        }
        return LoginStatus.SUCCESS;
    }

    private boolean discovery() {
        return "Discovery".equals(sessionType);
    }

    private NegotiatedParameters parameters() {
        int maxBurst = operational.number("MaxBurstLength");
        // RFC 7145 6.5: with RDMAExtensions=Yes, MaxRecvDataSegmentLength is irrelevant and the most
        // the target may send in one (control-type) PDU is InitiatorRecvDataSegmentLength's result.
        int initiatorRecv = operational.number(operational.yes("RDMAExtensions") ? "InitiatorRecvDataSegmentLength"
                : "MaxRecvDataSegmentLength");
        return new NegotiatedParameters(sessionType, initiatorName, initiatorAlias, targetName,
                "CRC32C".equals(operational.value("HeaderDigest")), "CRC32C".equals(operational.value("DataDigest")),
                operational.number("MaxConnections"), operational.yes("InitialR2T"), operational.yes("ImmediateData"),
                initiatorRecv, settings.maxRecvDataSegmentLength(), maxBurst,
                Math.min(operational.number("FirstBurstLength"), maxBurst), operational.number("DefaultTime2Wait"),
                operational.number("DefaultTime2Retain"), operational.number("MaxOutstandingR2T"),
                operational.yes("DataPDUInOrder"), operational.yes("DataSequenceInOrder"),
                operational.number("ErrorRecoveryLevel"));
    }

    private LoginStep fail(IscsiPdu request, int status, ByteBufAllocator alloc) {
        failed = true;
        int csg = (request.flags() >> 2) & 3;
        return new LoginStep(response(request, csg << 2, List.of(), status, alloc), LoginStep.Kind.FAILED, null);
    }

    /** A Login Response for this connection; consumes one StatSN. */
    private IscsiPdu response(IscsiPdu request, int flags, List<Map.Entry<String, String>> pairs, int status,
                              ByteBufAllocator alloc) {
        IscsiPdu response = loginResponse(request, flags, pairs, status, statSn, settings.commandWindow(), alloc);
        statSn++;
        return response;
    }

    /**
     * Builds a Login Response to a request (RFC 7143 11.13): ISID, TSIH and ITT echoed,
     * Version-max and Version-active 0, ExpCmdSN = the request's CmdSN, MaxCmdSN = CmdSN + window - 1.
     * Public so the session layer can refuse a login itself (e.g. {@link LoginStatus#TOO_MANY_CONNECTIONS}).
     */
    public static IscsiPdu loginResponse(IscsiPdu request, int flags, List<Map.Entry<String, String>> pairs, int status,
                                         int statSn, int commandWindow, ByteBufAllocator alloc) {
        ByteBuf data = pairs.isEmpty() ? Unpooled.EMPTY_BUFFER : TextParameters.encode(pairs, alloc);
        IscsiPdu response = IscsiPdu.create(alloc, Opcode.LOGIN_RESPONSE, data);
        response.flags(flags);
        response.isid(request.isid());
        response.tsih(request.tsih());
        response.initiatorTaskTag(request.initiatorTaskTag());
        response.statSn(statSn);
        response.expCmdSn(request.cmdSn());
        response.maxCmdSn(request.cmdSn() + commandWindow - 1);
        response.bhs().setByte(STATUS_CLASS_OFFSET, LoginStatus.statusClass(status));
        response.bhs().setByte(STATUS_DETAIL_OFFSET, LoginStatus.statusDetail(status));
        return response;
    }
}
