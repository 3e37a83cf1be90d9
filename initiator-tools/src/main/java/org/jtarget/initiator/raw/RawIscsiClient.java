package org.jtarget.initiator.raw;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A small, blocking iSCSI initiator over one connection, built from hand-made PDUs: login
 * (security stage then operational stage, RFC 7143 6.3), SCSI commands with Data-In and
 * R2T-driven Data-Out, NOP, Text (SendTargets), logout, and raw byte access for negative tests.
 *
 * <p>By default it negotiates the simplest session: no digests, {@code InitialR2T=Yes},
 * {@code ImmediateData=No}, {@code ErrorRecoveryLevel=0}, one command at a time.
 * {@link #digestOperationalKeys(boolean, boolean)} offers CRC32C digests instead (RFC 7143 13.1);
 * when the target selects them, every PDU after the final Login Response carries them and every
 * received one is checked ({@link DigestMismatchException}). With {@code ImmediateData=Yes}
 * negotiated, writes send their first burst as immediate data (RFC 7143 13.11).
 *
 * <p>Digest errors the target reports (Reject reason 0x02, RFC 7143 7.8) for this client's own
 * PDUs are recorded ({@link #dataDigestRejects()}); a rejected SCSI Command is retried once with
 * the same ITT and CmdSN (RFC 7143 7.2.1), a rejected Data-Out is left to the target, which ends
 * the task. Negative tests break digests with {@link #sendWithBadDigest} or {@link #corruptNext}.
 * Not thread-safe. Target-initiated NOP-Ins that ask for an answer are answered while waiting
 * for a command's end.
 *
 * <p>The connection is a {@link PduChannel}: TCP ({@link #connect}) or any other channel given to
 * {@link #over} (iSER). Over a channel with {@link PduChannel.DirectData} a command's data is placed
 * in the channel's registered buffers by the target (RDMA), so no Data-In, R2T or Data-Out PDU
 * travels, and the login offers the channel's {@link PduChannel#operationalKeys}.
 */
public final class RawIscsiClient implements AutoCloseable {

    /** The MaxRecvDataSegmentLength this client declares, and the largest segment it accepts. */
    public static final int OUR_MAX_RECV_DATA_SEGMENT_LENGTH = 262144;
    /** RFC 7143 13.12: the default MaxRecvDataSegmentLength when a side does not declare one. */
    public static final int DEFAULT_MAX_RECV_DATA_SEGMENT_LENGTH = 8192;
    private static final int MAX_LOGIN_EXCHANGES = 8;
    private static final int STATUS_BIT = 0x01;
    private static final int UNIT_ATTENTION = 0x6;
    private static final int OVERFLOW_BIT = 0x04;
    private static final int UNDERFLOW_BIT = 0x02;
    /** Reject reason "Data (payload) Digest Error" (RFC 7143 11.17.1). */
    public static final int REJECT_DATA_DIGEST_ERROR = 0x02;
    /** RFC 7143 13.14: FirstBurstLength when not negotiated. */
    private static final int DEFAULT_FIRST_BURST_LENGTH = 65536;
    private static final String CRC32C = "CRC32C";
    /**
     * Keys whose value both sides negotiate (RFC 7143 13, RFC 7145 6): when the target offers one
     * we did not, we accept its value in the next Login Request (RFC 7143 6.2: an offer must be
     * answered before the stage ends). Declarations (MaxRecvDataSegmentLength, TargetAlias...)
     * are never echoed.
     */
    private static final Set<String> NEGOTIATED_KEYS = Set.of("HeaderDigest", "DataDigest", "MaxConnections",
            "InitialR2T", "ImmediateData", "MaxBurstLength", "FirstBurstLength", "DefaultTime2Wait",
            "DefaultTime2Retain", "MaxOutstandingR2T", "DataPDUInOrder", "DataSequenceInOrder", "ErrorRecoveryLevel",
            "RDMAExtensions");

    private final PduChannel channel;
    private long isid;
    private final Map<String, String> negotiated = new LinkedHashMap<>();
    private int nextItt = 1;
    private int cmdSn = 1;
    private int expStatSn;
    private int maxCmdSn;
    private int tsih;
    private int targetMaxRecvDataSegmentLength = DEFAULT_MAX_RECV_DATA_SEGMENT_LENGTH;
    private boolean headerDigest;
    private boolean dataDigest;
    private boolean immediateData;
    private int firstBurstLength = DEFAULT_FIRST_BURST_LENGTH;
    private int corruptOpcode = -1;
    private IscsiDigest.Kind corruptKind;
    private final List<RawPdu> dataDigestRejects = new ArrayList<>();
    /** The keys of the last Login Response. */
    private Map<String, String> lastAnswer = Map.of();

    private RawIscsiClient(PduChannel channel) {
        this.channel = channel;
        // RFC 7143 11.12.5: ISID type 10b (random), 24 random bits, 16-bit qualifier.
        this.isid = (0x80L << 40) | ((long) ThreadLocalRandom.current().nextInt(1 << 24) << 16) | 1;
    }

    /**
     * Sets the ISID the next login uses (48 bits) instead of the random one: an initiator that keeps
     * its ISID across sessions (open-iscsi does, per interface) is the same SCSI initiator port
     * ({@code name,i,0x<ISID>}, RFC 7143 10.12.5) through every target portal, which persistent
     * reservations key on.
     */
    public RawIscsiClient isid(long isid) {
        if (isid >>> 48 != 0) {
            throw new IllegalArgumentException("an ISID has 48 bits: " + Long.toHexString(isid));
        }
        this.isid = isid;
        return this;
    }

    /**
     * Opens a TCP connection; reads time out after {@code timeout} too (change it with
     * {@link #readTimeout(Duration)}).
     */
    public static RawIscsiClient connect(String host, int port, Duration timeout) throws IOException {
        return new RawIscsiClient(TcpPduChannel.connect(host, port, timeout));
    }

    /** A client over an open channel (closed with the client). */
    public static RawIscsiClient over(PduChannel channel) {
        return new RawIscsiClient(channel);
    }

    /** Sets how long a read waits before {@link SocketTimeoutException}. */
    public void readTimeout(Duration timeout) throws IOException {
        channel.readTimeout(timeout);
    }

    /** Registered data buffers when the channel places data directly (iSER), else null. */
    public PduChannel.DirectData directData() {
        return channel.directData();
    }

    // ------------------------------------------------------------------ login

    /** The operational keys this client proposes in a Normal session (RFC 7143 13). */
    public static Map<String, String> defaultOperationalKeys() {
        Map<String, String> k = new LinkedHashMap<>();
        k.put("HeaderDigest", "None");
        k.put("DataDigest", "None");
        k.put("MaxRecvDataSegmentLength", Integer.toString(OUR_MAX_RECV_DATA_SEGMENT_LENGTH));
        k.put("InitialR2T", "Yes");
        k.put("ImmediateData", "No");
        k.put("MaxBurstLength", "262144");
        k.put("FirstBurstLength", "65536");
        k.put("MaxConnections", "1");
        k.put("MaxOutstandingR2T", "1");
        k.put("DataPDUInOrder", "Yes");
        k.put("DataSequenceInOrder", "Yes");
        k.put("DefaultTime2Wait", "0");
        k.put("DefaultTime2Retain", "0");
        k.put("ErrorRecoveryLevel", "0");
        return k;
    }

    /**
     * {@link #defaultOperationalKeys()} offering {@code CRC32C} alone for the chosen digests, so a
     * target must accept it or fail the login (RFC 7143 6.2: the responder picks from the offer).
     */
    public static Map<String, String> digestOperationalKeys(boolean header, boolean data) {
        Map<String, String> k = defaultOperationalKeys();
        if (header) {
            k.put(IscsiDigest.Kind.HEADER.key(), CRC32C);
        }
        if (data) {
            k.put(IscsiDigest.Kind.DATA.key(), CRC32C);
        }
        return k;
    }

    /** Logs in to a Normal session on {@code targetName} with {@link #defaultOperationalKeys()}. */
    public LoginResult login(String initiatorName, String targetName) throws IOException {
        return login(initiatorName, targetName, defaultOperationalKeys());
    }

    /**
     * Logs in: stage 0 (SecurityNegotiation) with {@code AuthMethod=None} transiting to stage 1,
     * then stage 1 (LoginOperationalNegotiation) with {@code operationalKeys} transiting to the
     * Full Feature Phase (RFC 7143 6.3). A non-zero status ends the attempt and is returned, not thrown.
     *
     * @param targetName the target IQN, or {@code null} for a Discovery session
     */
    public LoginResult login(String initiatorName, String targetName, Map<String, String> operationalKeys)
            throws IOException {
        return login(initiatorName, targetName, operationalKeys, null);
    }

    /**
     * As {@link #login(String, String, Map)}; with {@code chap} non-null the security stage offers
     * {@code AuthMethod=CHAP,None} and, when the target picks CHAP, runs the exchange (RFC 7143
     * 12.1.3): {@code CHAP_A} with the credentials' algorithms, then {@code CHAP_N}/{@code CHAP_R}
     * answering the target's {@code CHAP_I}/{@code CHAP_C} with the algorithm it chose; for mutual
     * CHAP also our {@code CHAP_I}/{@code CHAP_C}, and the target's answer is checked
     * ({@link IscsiProtocolException} if wrong).
     */
    public LoginResult login(String initiatorName, String targetName, Map<String, String> operationalKeys,
                             ChapCredentials chap) throws IOException {
        Map<String, String> security = new LinkedHashMap<>();
        security.put("InitiatorName", initiatorName);
        security.put("SessionType", targetName == null ? "Discovery" : "Normal");
        if (targetName != null) {
            security.put("TargetName", targetName);
        }
        security.put("AuthMethod", chap == null ? "None" : "CHAP,None");
        int itt = nextItt++;
        LoginResult first = chap == null
                ? loginStage(itt, InitiatorPdus.SECURITY_NEGOTIATION, InitiatorPdus.LOGIN_OPERATIONAL_NEGOTIATION,
                        security)
                : chapSecurityStage(itt, security, chap);
        if (first.statusClass() != 0 || first.fullFeature()) {
            return first;
        }
        LoginResult second = loginStage(itt, InitiatorPdus.LOGIN_OPERATIONAL_NEGOTIATION,
                InitiatorPdus.FULL_FEATURE_PHASE, targetName == null ? operationalKeys
                        : channel.operationalKeys(operationalKeys));
        String mrdsl = negotiated.get("MaxRecvDataSegmentLength");
        if (mrdsl != null) {
            targetMaxRecvDataSegmentLength = Integer.parseInt(mrdsl.trim());
        }
        if (second.succeeded()) {
            enterFullFeature();
        }
        return second;
    }

    /**
     * The security stage with CHAP offered (RFC 7143 12.1.3): every request asks to transit (T=1),
     * which the target grants only once the initiator is authenticated.
     */
    private LoginResult chapSecurityStage(int itt, Map<String, String> security, ChapCredentials chap)
            throws IOException {
        int csg = InitiatorPdus.SECURITY_NEGOTIATION;
        int nsg = InitiatorPdus.LOGIN_OPERATIONAL_NEGOTIATION;
        LoginResult r = loginExchange(itt, csg, nsg, security);
        if (r != null) {
            return r;
        }
        if (!"CHAP".equals(negotiatedValue("AuthMethod"))) {
            return loginStage(itt, csg, nsg, Map.of()); // the target chose None
        }
        r = loginExchange(itt, csg, nsg, Map.of("CHAP_A", chap.offer()));
        if (r != null) {
            return r;
        }
        String algorithm = negotiatedValue("CHAP_A");
        Map<String, String> answer = new LinkedHashMap<>();
        answer.put("CHAP_N", chap.user());
        answer.put("CHAP_R", chap.answer(algorithm, negotiatedValue("CHAP_I"), negotiatedValue("CHAP_C")));
        if (!chap.mutual()) {
            return loginStage(itt, csg, nsg, answer);
        }
        ChapCredentials.TargetChallenge challenge = chap.challengeTarget(algorithm);
        answer.putAll(challenge.keys());
        LoginResult result = loginStage(itt, csg, nsg, answer);
        if (result.statusClass() == 0) {
            // As open-iscsi does: a target that cannot prove itself ends the login on our side.
            chap.verifyTarget(challenge, negotiatedValue("CHAP_N"), negotiatedValue("CHAP_R"));
        }
        return result;
    }

    /**
     * RFC 7143 13.1: the digests the target selected apply to every PDU of the Full Feature
     * Phase, i.e. from the first PDU after the final Login Response on.
     */
    private void enterFullFeature() {
        headerDigest = CRC32C.equals(negotiatedValue(IscsiDigest.Kind.HEADER.key()));
        dataDigest = CRC32C.equals(negotiatedValue(IscsiDigest.Kind.DATA.key()));
        immediateData = "Yes".equals(negotiatedValue("ImmediateData"));
        String fbl = negotiatedValue("FirstBurstLength");
        // RFC 7143 13.14: "Irrelevant" when InitialR2T=Yes and ImmediateData=No
        firstBurstLength = fbl == null || !fbl.chars().allMatch(Character::isDigit) ? DEFAULT_FIRST_BURST_LENGTH
                : Integer.parseInt(fbl);
    }

    private String negotiatedValue(String key) {
        String v = negotiated.get(key);
        return v == null ? null : v.trim();
    }

    /** Whether PDUs now carry a CRC32C HeaderDigest (the target selected it at login). */
    public boolean headerDigest() {
        return headerDigest;
    }

    /** Whether non-empty data segments now carry a CRC32C DataDigest. */
    public boolean dataDigest() {
        return dataDigest;
    }

    /** Logs in to a Discovery session. */
    public LoginResult discoveryLogin(String initiatorName) throws IOException {
        return discoveryLogin(initiatorName, null);
    }

    /** Logs in to a Discovery session, with one-way CHAP when {@code chap} is non-null. */
    public LoginResult discoveryLogin(String initiatorName, ChapCredentials chap) throws IOException {
        Map<String, String> ops = new LinkedHashMap<>();
        ops.put("HeaderDigest", "None");
        ops.put("DataDigest", "None");
        ops.put("MaxRecvDataSegmentLength", Integer.toString(OUR_MAX_RECV_DATA_SEGMENT_LENGTH));
        return login(initiatorName, null, ops, chap);
    }

    /**
     * Sends login requests in stage {@code csg} asking to move to {@code nsg} until the target
     * answers with the transit bit (it may answer T=0 while it still has keys to say).
     */
    private LoginResult loginStage(int itt, int csg, int nsg, Map<String, String> keys) throws IOException {
        Map<String, String> toSend = keys;
        Set<String> sent = new HashSet<>(keys.keySet());
        for (int exchange = 0; exchange < MAX_LOGIN_EXCHANGES; exchange++) {
            LoginResult r = loginExchange(itt, csg, nsg, toSend);
            if (r != null) {
                return r;
            }
            toSend = answersToOffers(sent);
            sent.addAll(toSend.keySet());
        }
        throw new IscsiProtocolException("target did not leave login stage " + csg + " after "
                + MAX_LOGIN_EXCHANGES + " exchanges");
    }

    /** The target's offers in its last response that we have not offered ourselves, accepted as they are. */
    private Map<String, String> answersToOffers(Set<String> sent) {
        Map<String, String> answers = new LinkedHashMap<>();
        lastAnswer.forEach((key, value) -> {
            if (NEGOTIATED_KEYS.contains(key) && !sent.contains(key)) {
                answers.put(key, value.trim());
            }
        });
        return answers;
    }

    /**
     * One Login Request (T=1) and its response: the result when the login failed or the target
     * transited, {@code null} when it stays in stage {@code csg} (T=0).
     */
    private LoginResult loginExchange(int itt, int csg, int nsg, Map<String, String> keys) throws IOException {
        send(InitiatorPdus.loginRequest(true, csg, nsg, isid, tsih, itt, 0, cmdSn, expStatSn, keys));
        RawPdu rsp = readPdu();
        if (rsp == null) {
            throw new IscsiProtocolException("target closed the connection during login stage " + csg);
        }
        if (rsp.opcode() != IscsiOpcodes.LOGIN_RESPONSE) {
            throw new IscsiProtocolException("expected a Login Response in stage " + csg + ", got " + rsp);
        }
        noteStatus(rsp);
        lastAnswer = TextKeys.decode(rsp.data());
        negotiated.putAll(lastAnswer);
        int statusClass = rsp.u8(RawPdu.STATUS_CLASS_OFFSET);
        int statusDetail = rsp.u8(RawPdu.STATUS_DETAIL_OFFSET);
        if (statusClass != 0) {
            return new LoginResult(statusClass, statusDetail, 0, Map.copyOf(negotiated), false);
        }
        tsih = rsp.tsih();
        if ((rsp.flags() & InitiatorPdus.LOGIN_TRANSIT_BIT) == 0) {
            return null;
        }
        boolean ffp = (rsp.flags() & 3) == InitiatorPdus.FULL_FEATURE_PHASE;
        return new LoginResult(0, 0, tsih, Map.copyOf(negotiated), ffp);
    }

    /** Every key the target sent during login (last value wins). */
    public Map<String, String> negotiated() {
        return Map.copyOf(negotiated);
    }

    /** The target's declared MaxRecvDataSegmentLength: Data-Out segments are cut to it. */
    public int targetMaxRecvDataSegmentLength() {
        return targetMaxRecvDataSegmentLength;
    }

    public int tsih() {
        return tsih;
    }

    // ------------------------------------------------------------------ SCSI

    /** TEST UNIT READY. */
    public ScsiResult testUnitReady(int lun) throws IOException {
        return execute(lun, ScsiCdbs.testUnitReady(), 0);
    }

    /**
     * TEST UNIT READY repeated while it answers UNIT ATTENTION (SAM-5 5.14: a new I_T nexus may
     * see one per pending condition, e.g. power on or reset), at most 8 times; returns the last answer.
     */
    public ScsiResult testUnitReadyClearingUnitAttention(int lun) throws IOException {
        ScsiResult r = testUnitReady(lun);
        for (int i = 0; i < 7 && r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == UNIT_ATTENTION; i++) {
            r = testUnitReady(lun);
        }
        return r;
    }

    /** INQUIRY (standard data or a VPD page). */
    public ScsiResult inquiry(int lun, boolean evpd, int page, int allocationLength) throws IOException {
        return execute(lun, ScsiCdbs.inquiry(evpd, page, allocationLength), allocationLength);
    }

    /** READ (10) of {@code blocks} blocks of {@code blockSize} bytes. */
    public ScsiResult read10(int lun, long lba, int blocks, int blockSize) throws IOException {
        return execute(lun, ScsiCdbs.read10(lba, blocks), blocks * blockSize);
    }

    /** WRITE (10) of {@code data} (a whole number of {@code blockSize} blocks). */
    public ScsiResult write10(int lun, long lba, byte[] data, int blockSize) throws IOException {
        if (data.length % blockSize != 0) {
            throw new IllegalArgumentException(data.length + " bytes is not a whole number of " + blockSize
                    + "-byte blocks");
        }
        return execute(lun, ScsiCdbs.write10(lba, data.length / blockSize), data);
    }

    /** Runs a command with no data or with Data-In of up to {@code readLength} bytes. */
    public ScsiResult execute(int lun, byte[] cdb, int readLength) throws IOException {
        return execute(lun, cdb, readLength, null);
    }

    /** Runs a command whose Data-Out is {@code writeData}, sent as the target's R2Ts ask. */
    public ScsiResult execute(int lun, byte[] cdb, byte[] writeData) throws IOException {
        return execute(lun, cdb, 0, writeData);
    }

    private ScsiResult execute(int lun, byte[] cdb, int readLength, byte[] writeData) throws IOException {
        if (channel.directData() != null) {
            return executeDirect(channel.directData(), lun, cdb, readLength, writeData);
        }
        int itt = nextItt++;
        boolean write = writeData != null;
        int edtl = write ? writeData.length : readLength;
        RawPdu command = InitiatorPdus.scsiCommand(lun, itt, cmdSn, expStatSn, cdb, !write && readLength > 0, write,
                edtl);
        if (write && immediateData) {
            int n = Math.min(writeData.length, Math.min(firstBurstLength, targetMaxRecvDataSegmentLength));
            command.data(Arrays.copyOf(writeData, n)); // RFC 7143 10.4.4 / 13.11: the first burst rides along
        }
        send(command);
        cmdSn++;
        byte[] dataIn = new byte[write ? 0 : readLength];
        int received = 0;
        while (true) {
            RawPdu pdu = readForTask(itt, "SCSI command 0x" + Integer.toHexString(cdb[0] & 0xff), command);
            switch (pdu.opcode()) {
                case IscsiOpcodes.SCSI_DATA_IN -> {
                    received = Math.max(received, copyDataIn(pdu, dataIn));
                    if ((pdu.flags() & STATUS_BIT) != 0) {
                        noteStatus(pdu);
                        return new ScsiResult(pdu.u8(3), 0, Arrays.copyOf(dataIn, received), new byte[0],
                                signedResidual(pdu));
                    }
                }
                case IscsiOpcodes.R2T -> answerR2T(lun, itt, pdu, writeData);
                case IscsiOpcodes.SCSI_RESPONSE -> {
                    noteStatus(pdu);
                    return new ScsiResult(pdu.u8(3), pdu.u8(2), Arrays.copyOf(dataIn, received), sense(pdu),
                            signedResidual(pdu));
                }
                default -> throw new IscsiProtocolException("unexpected " + pdu + " for ITT 0x"
                        + Integer.toHexString(itt));
            }
        }
    }

    /**
     * A command over a channel that places data directly (RFC 7145): a write that fits the
     * immediate data allowed goes whole in the command PDU; a larger one is staged in slot 0 and
     * fetched by the target, all of it (no immediate part). The Data-In is in slot 0 when the SCSI
     * Response arrives (the target sends it after its RDMA WRITEs on the same queue pair), EDTL
     * less the underflow.
     */
    private ScsiResult executeDirect(PduChannel.DirectData direct, int lun, byte[] cdb, int readLength,
                                     byte[] writeData) throws IOException {
        boolean write = writeData != null;
        int edtl = write ? writeData.length : readLength;
        if (edtl > direct.slotBytes()) {
            throw new IllegalArgumentException(edtl + " bytes do not fit the channel's " + direct.slotBytes()
                    + "-byte data buffer");
        }
        int itt = nextItt++;
        RawPdu command = InitiatorPdus.scsiCommand(lun, itt, cmdSn, expStatSn, cdb, !write && readLength > 0, write,
                edtl);
        boolean whollyImmediate = write && writeData.length <= immediateDataLimit();
        if (whollyImmediate) {
            command.data(writeData);
        } else if (write) {
            direct.stage(0, writeData, 0, writeData.length);
        }
        direct.sendCommand(command, 0, write ? 0 : readLength, write && !whollyImmediate ? writeData.length : 0);
        cmdSn++;
        String what = "SCSI command 0x" + Integer.toHexString(cdb[0] & 0xff);
        RawPdu rsp = readForTask(itt, what);
        if (rsp.opcode() != IscsiOpcodes.SCSI_RESPONSE) {
            throw new IscsiProtocolException("unexpected " + rsp + " for " + what
                    + ": data moves by RDMA on this connection");
        }
        noteStatus(rsp);
        int residual = signedResidual(rsp);
        int placed = write ? 0 : Math.max(0, readLength - Math.max(residual, 0));
        byte[] dataIn = new byte[placed];
        direct.take(0, dataIn, 0, placed);
        return new ScsiResult(rsp.u8(3), rsp.u8(2), dataIn, sense(rsp), residual);
    }

    /** The most bytes of a write that may ride in its command PDU: 0 unless ImmediateData=Yes (RFC 7143 13.11). */
    public int immediateDataLimit() {
        return immediateData ? Math.min(firstBurstLength, targetMaxRecvDataSegmentLength) : 0;
    }

    private int copyDataIn(RawPdu pdu, byte[] dataIn) throws IscsiProtocolException {
        int offset = pdu.word40();
        byte[] d = pdu.data();
        if (offset < 0 || offset + d.length > dataIn.length) {
            throw new IscsiProtocolException("Data-In at offset " + offset + " with " + d.length
                    + " bytes overruns the expected " + dataIn.length + " bytes");
        }
        System.arraycopy(d, 0, dataIn, offset, d.length);
        return offset + d.length;
    }

    /** RFC 7143 11.8: answers one R2T with Data-Out PDUs no larger than the target's MaxRecvDataSegmentLength. */
    private void answerR2T(int lun, int itt, RawPdu r2t, byte[] writeData) throws IOException {
        if (writeData == null) {
            throw new IscsiProtocolException("R2T for a command without data-out: " + r2t);
        }
        int offset = r2t.word40();
        int length = r2t.word44();
        if (offset < 0 || length < 0 || offset + length > writeData.length) {
            throw new IscsiProtocolException("R2T asks for bytes " + offset + "+" + length + " of a "
                    + writeData.length + "-byte write");
        }
        int ttt = r2t.word20();
        int dataSn = 0;
        for (int done = 0; done < length; dataSn++) {
            int n = Math.min(targetMaxRecvDataSegmentLength, length - done);
            byte[] chunk = Arrays.copyOfRange(writeData, offset + done, offset + done + n);
            done += n;
            send(InitiatorPdus.dataOut(lun, itt, ttt, expStatSn, dataSn, offset + done - n, chunk, done == length));
        }
    }

    private static byte[] sense(RawPdu rsp) {
        byte[] d = rsp.data();
        if (d.length < 2) {
            return new byte[0];
        }
        int len = ((d[0] & 0xff) << 8) | (d[1] & 0xff);
        return Arrays.copyOfRange(d, 2, Math.min(d.length, 2 + len));
    }

    private static int signedResidual(RawPdu pdu) {
        int flags = pdu.flags();
        if ((flags & UNDERFLOW_BIT) != 0) {
            return pdu.word44();
        }
        return (flags & OVERFLOW_BIT) != 0 ? -pdu.word44() : 0;
    }

    // ------------------------------------------------------------------ other requests

    /** Sends a NOP-Out ping and returns the target's NOP-In answer (RFC 7143 11.18, 11.19). */
    public RawPdu ping() throws IOException {
        int itt = nextItt++;
        send(InitiatorPdus.nopOut(itt, RawPdu.RESERVED_TAG, cmdSn, expStatSn, true));
        RawPdu rsp = readForTask(itt, "NOP-Out ping");
        if (rsp.opcode() != IscsiOpcodes.NOP_IN) {
            throw new IscsiProtocolException("expected NOP-In for the ping, got " + rsp);
        }
        noteStatus(rsp);
        return rsp;
    }

    /** {@code SendTargets=All} in a Discovery (or Normal) session; returns the pairs in order. */
    public List<String> sendTargets() throws IOException {
        int itt = nextItt++;
        send(InitiatorPdus.textRequest(itt, cmdSn, expStatSn, Map.of("SendTargets", "All")));
        cmdSn++;
        RawPdu rsp = readForTask(itt, "SendTargets");
        if (rsp.opcode() != IscsiOpcodes.TEXT_RESPONSE) {
            throw new IscsiProtocolException("expected a Text Response, got " + rsp);
        }
        noteStatus(rsp);
        return TextKeys.decodeAll(rsp.data());
    }

    /** Logs out (close the session) and returns the Logout Response's response code (0 = closed). */
    public int logout() throws IOException {
        int itt = nextItt++;
        send(InitiatorPdus.logoutRequest(itt, 0, cmdSn, expStatSn));
        RawPdu rsp = readForTask(itt, "Logout");
        if (rsp.opcode() != IscsiOpcodes.LOGOUT_RESPONSE) {
            throw new IscsiProtocolException("expected a Logout Response, got " + rsp);
        }
        noteStatus(rsp);
        return rsp.u8(2);
    }

    // ------------------------------------------------------------------ raw access

    /**
     * Sends one PDU as is, with the digests in use (and the corruption armed by
     * {@link #corruptNext} if it matches this PDU's opcode).
     */
    public void send(RawPdu pdu) throws IOException {
        IscsiDigest.Kind corrupt = null;
        if (pdu.opcode() == corruptOpcode) {
            corrupt = corruptKind;
            corruptOpcode = -1;
        }
        channel.send(pdu, headerDigest, dataDigest, corrupt);
    }

    /**
     * Sends one PDU with a wrong HeaderDigest or DataDigest, for negative tests (see
     * {@link RawPdu#toBytes(boolean, boolean, IscsiDigest.Kind)} for how each is broken).
     *
     * @throws IllegalArgumentException if that digest is not in use or the PDU has no data segment
     */
    public void sendWithBadDigest(RawPdu pdu, IscsiDigest.Kind which) throws IOException {
        channel.send(pdu, headerDigest, dataDigest, which);
    }

    /**
     * Arms a one-shot fault: the next PDU with {@code opcode} that this client sends (for example
     * the second Data-Out of a {@link #write10}) goes out with {@code which} digest broken.
     */
    public void corruptNext(int opcode, IscsiDigest.Kind which) {
        if (!(which == IscsiDigest.Kind.HEADER ? headerDigest : dataDigest)) {
            throw new IllegalStateException(which.key() + " is not in use on this connection");
        }
        corruptOpcode = opcode;
        corruptKind = which;
    }

    /** Sends arbitrary bytes (for garbage and truncated PDUs). */
    public void sendBytes(byte[] bytes) throws IOException {
        channel.sendBytes(bytes);
    }

    /** Half-closes the connection: the target sees end of stream, we can still read. */
    public void shutdownOutput() throws IOException {
        channel.shutdownOutput();
    }

    /**
     * Reads the next PDU, whatever it is.
     *
     * @return the PDU, or {@code null} when the target closed the connection
     * @throws SocketTimeoutException when nothing arrives within the read timeout
     */
    public RawPdu readPdu() throws IOException {
        return windowed(channel.read(OUR_MAX_RECV_DATA_SEGMENT_LENGTH, headerDigest, dataDigest));
    }

    /**
     * Inside a {@link PduChannel.Driven#drive} step of this client's channel: the next PDU received
     * or null, without waiting; the command window follows it as in {@link #readPdu}.
     */
    public RawPdu pollPdu() throws IOException {
        return windowed(channel.driven().poll(OUR_MAX_RECV_DATA_SEGMENT_LENGTH));
    }

    /** The channel's event-driven mode, or null (see {@link PduChannel#driven()}). */
    public PduChannel.Driven driven() {
        return channel.driven();
    }

    private RawPdu windowed(RawPdu pdu) {
        if (pdu != null && pdu.opcode() >= IscsiOpcodes.NOP_IN) {
            expCmdSnWindow(pdu);
        }
        return pdu;
    }

    /**
     * Waits for the target to answer a protocol error: a Reject PDU, or the connection closing
     * (reset included). NOP-Ins and Async Messages in between are noted and skipped.
     */
    public ProtocolErrorOutcome awaitRejectOrClose(Duration timeout) throws IOException {
        readTimeout(timeout);
        List<RawPdu> seen = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            RawPdu pdu;
            try {
                pdu = readPdu();
            } catch (SocketTimeoutException e) {
                break;
            } catch (SocketException | java.io.EOFException e) {
                return new ProtocolErrorOutcome(ProtocolErrorOutcome.Kind.CLOSED, null, seen);
            }
            if (pdu == null) {
                return new ProtocolErrorOutcome(ProtocolErrorOutcome.Kind.CLOSED, null, seen);
            }
            if (pdu.opcode() == IscsiOpcodes.REJECT) {
                return new ProtocolErrorOutcome(ProtocolErrorOutcome.Kind.REJECTED, pdu, seen);
            }
            seen.add(pdu);
        }
        return new ProtocolErrorOutcome(ProtocolErrorOutcome.Kind.TIMED_OUT, null, seen);
    }

    /** Whether the connection is still open on our side. */
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    // ------------------------------------------------------------------ sequencing

    /**
     * Reads until a PDU for {@code itt} arrives, answering target NOP-Ins that carry a TTT
     * (RFC 7143 11.19.2) and skipping Async Messages. A Reject or end of stream is an error.
     */
    private RawPdu readForTask(int itt, String what) throws IOException {
        return readForTask(itt, what, null);
    }

    /**
     * As {@link #readForTask(int, String)}; a Reject for a data digest error in one of this task's
     * PDUs is recorded instead of failing: if it names {@code retryable} (the task's command,
     * discarded whole by the target) that PDU is sent again once, unchanged (RFC 7143 7.2.1, 7.8).
     */
    private RawPdu readForTask(int itt, String what, RawPdu retryable) throws IOException {
        boolean retried = false;
        while (true) {
            RawPdu pdu = readPdu();
            if (pdu == null) {
                throw new IscsiProtocolException("target closed the connection while waiting for the answer to "
                        + what);
            }
            if (pdu.opcode() == IscsiOpcodes.REJECT) {
                RawPdu rejected = rejectedHeader(pdu);
                if (pdu.u8(2) != REJECT_DATA_DIGEST_ERROR || rejected == null || rejected.itt() != itt) {
                    throw new IscsiProtocolException("target rejected " + what + " with reason 0x"
                            + Integer.toHexString(pdu.u8(2)));
                }
                dataDigestRejects.add(pdu);
                if (retryable != null && rejected.opcode() == retryable.opcode()) {
                    if (retried) {
                        throw new IscsiProtocolException("target rejected the retry of " + what
                                + " with a data digest error again");
                    }
                    retried = true;
                    send(retryable);
                }
                continue;
            }
            if (pdu.itt() == itt) {
                return pdu;
            }
            if (pdu.opcode() == IscsiOpcodes.NOP_IN && pdu.word20() != RawPdu.RESERVED_TAG) {
                send(InitiatorPdus.nopOut(RawPdu.RESERVED_TAG, pdu.word20(), cmdSn, expStatSn, true));
            } else if (pdu.opcode() != IscsiOpcodes.NOP_IN && pdu.opcode() != IscsiOpcodes.ASYNC_MESSAGE) {
                throw new IscsiProtocolException("unexpected " + pdu + " while waiting for the answer to " + what);
            }
        }
    }

    /** The header a Reject echoes in its data segment (RFC 7143 11.17), or null if it is too short. */
    private static RawPdu rejectedHeader(RawPdu reject) {
        byte[] d = reject.data();
        return d.length < RawPdu.BHS_LENGTH ? null : RawPdu.wrap(Arrays.copyOf(d, RawPdu.BHS_LENGTH), new byte[0],
                new byte[0]);
    }

    /**
     * The Rejects with reason Data Digest Error (0x02) this client received for its own tasks'
     * PDUs and handled (see the class comment), oldest first.
     */
    public List<RawPdu> dataDigestRejects() {
        return List.copyOf(dataDigestRejects);
    }

    /** A PDU that carries a status advances StatSN: acknowledge it in ExpStatSN (RFC 7143 4.2.2.2). */
    private void noteStatus(RawPdu pdu) {
        expStatSn = pdu.word24() + 1;
    }

    /** Every target PDU carries MaxCmdSN in word 32 (RFC 7143 11.2.1.x, 4.2.2.1). */
    private void expCmdSnWindow(RawPdu pdu) {
        maxCmdSn = pdu.word32();
    }

    /** The MaxCmdSN the target last announced. */
    public int maxCmdSn() {
        return maxCmdSn;
    }

    /** The CmdSN the next non-immediate command will carry. */
    public int cmdSn() {
        return cmdSn;
    }
}
