package org.jtarget.initiator.srp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.srp.iu.SrpIu;
import org.jtarget.fabric.srp.iu.SrpLoginReject;
import org.jtarget.fabric.srp.iu.SrpLoginRequest;
import org.jtarget.fabric.srp.iu.SrpLoginResponse;
import org.jtarget.fabric.srp.iu.SrpPortId;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The SRP initiator's channel against a target scripted IU by IU ({@link ScriptedSrpTarget}): the
 * login it sends, the SRP_CMDs it writes, and how it takes credits, the target's requests, a
 * target logout and malformed IUs, which the daemon's fabric does not send on demand.
 */
class SrpChannelTest {

    private static final SrpPortId INITIATOR = SrpPortId.of(0, 0x1122334455667788L);
    private static final SrpPortId TARGET = SrpPortId.of(0x0123456789abcdefL, 0x00a0b1c2d3e4f501L);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private ScriptedSrpTarget target;
    private SrpChannel channel;

    @AfterEach
    void close() {
        if (channel != null) {
            channel.close();
        }
        if (target != null) {
            target.close();
        }
    }

    /** A target that accepts every login with {@code credits} and, if {@code immediate}, immediate data. */
    private SrpChannel loggedIn(int credits, boolean immediate) throws Exception {
        target = new ScriptedSrpTarget(request -> new SrpLoginResponse(credits, 0, SrpChannel.IU_LENGTH, 292,
                SrpIu.BUFFER_FORMAT_DIRECT | SrpIu.BUFFER_FORMAT_INDIRECT,
                immediate ? SrpLoginResponse.IMMEDIATE_DATA_SUPPORTED : 0).encode());
        channel = connect();
        return channel;
    }

    private SrpChannel connect() throws Exception {
        return SrpChannel.connect("127.0.0.1", target.port(), INITIATOR, TARGET, false, TIMEOUT, 2, 64 << 10);
    }

    @Test
    void theLoginIsIbSrpsRdmaCmFormAndItsAnswerSetsCreditsAndImmediateData() throws Exception {
        loggedIn(3, true);

        SrpLoginRequest login = ((Decoded.Ok<SrpLoginRequest>) SrpLoginRequest.decode(target.loginRequest())).value();
        assertThat(login.form()).isEqualTo(SrpLoginRequest.Form.RDMA_CM);
        assertThat(login.initiatorPortId()).isEqualTo(INITIATOR);
        assertThat(login.targetPortId()).isEqualTo(TARGET);
        assertThat(login.maxInitiatorToTargetIuLength()).isEqualTo(68 + 8192);
        assertThat(login.bufferFormats()).isEqualTo(SrpIu.BUFFER_FORMAT_DIRECT);
        assertThat(login.immediateDataRequested()).isTrue();
        assertThat(login.immediateDataOffset()).isEqualTo(68);
        assertThat(login.multiChannelAction()).isEqualTo(SrpLoginRequest.SINGLE_CHANNEL);
        assertThat(channel.requestLimit()).isEqualTo(3);
        assertThat(channel.immediateDataLimit()).isEqualTo(8192);
    }

    @Test
    void withoutImmediateDataAgreedEveryWriteGoesByDescriptor() throws Exception {
        loggedIn(2, false);
        assertThat(channel.immediateDataLimit()).isZero();
        channel.stage(1, new byte[512], 0, 512);

        channel.sendCommand(1, 9, 0, ScsiCdbs.write16(4, 1, false), 0, 512);

        ByteBuffer iu = target.nextIu();
        assertThat(iu.limit()).isEqualTo(64);
        assertThat(iu.get(5)).as("DATA-OUT direct").isEqualTo((byte) 0x10);
        assertThat(iu.getInt(60)).isEqualTo(512);
    }

    @Test
    void aCommandIsAnSrpCmdWithADirectDescriptorAndItsResponseGivesCreditsAndResiduals() throws Exception {
        loggedIn(1, true);
        CompletableFuture<ScsiResult> read = CompletableFuture.supplyAsync(() -> run(() ->
                channel.execute(300, ScsiCdbs.inquiry(false, 0, 512), 512, null)));

        ByteBuffer cmd = target.nextIu();
        assertThat(cmd.limit()).as("48 bytes and one direct descriptor").isEqualTo(64);
        assertThat(cmd.get(0)).isEqualTo((byte) 0x02);
        assertThat(cmd.get(5)).as("DATA-IN direct, no DATA-OUT").isEqualTo((byte) 0x01);
        long tag = cmd.getLong(8);
        assertThat(cmd.getLong(20)).as("LUN 300, flat space addressing").isEqualTo(0x412cL << 48);
        assertThat(cmd.get(29)).as("SIMPLE").isZero();
        assertThat(cmd.get(32)).as("INQUIRY").isEqualTo((byte) 0x12);
        assertThat(cmd.getInt(56)).as("an rkey").isNotZero();
        assertThat(cmd.getInt(60)).isEqualTo(512);

        target.send(creditRequest(4, 0x77));
        ByteBuffer answer = target.nextIu();
        assertThat(answer.limit()).isEqualTo(16);
        assertThat(answer.get(0)).as("SRP_CRED_RSP").isEqualTo((byte) 0x41);
        assertThat(answer.getLong(8)).isEqualTo(0x77);
        target.send(response(tag, 1, 0, 0x20, 12, new byte[0]));

        ScsiResult r = read.get(10, TimeUnit.SECONDS);
        assertThat(r.good()).isTrue();
        assertThat(r.residual()).isEqualTo(12);
        assertThat(r.data()).as("the allocation less the underflow").hasSize(500);
        assertThat(channel.requestLimit()).as("1 - 1 for the command + 4 + 1").isEqualTo(5);
    }

    @Test
    void aSmallWriteCarriesItsDataAtOffset68() throws Exception {
        loggedIn(2, true);
        byte[] data = new byte[1024];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        CompletableFuture<ScsiResult> write = CompletableFuture.supplyAsync(() -> run(() ->
                channel.execute(0, ScsiCdbs.write16(8, 2, false), 0, data)));

        ByteBuffer cmd = target.nextIu();
        assertThat(cmd.limit()).isEqualTo(68 + 1024);
        assertThat(cmd.get(5)).as("DATA-OUT immediate").isEqualTo((byte) 0x30);
        assertThat(cmd.getInt(48)).isEqualTo(1024);
        assertThat(cmd.slice(68, 1024)).isEqualTo(ByteBuffer.wrap(data));
        byte[] sense = {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x21, 0};
        target.send(response(cmd.getLong(8), 1, 2, 0x02, 0, sense));

        ScsiResult r = write.get(10, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(ScsiResult.CHECK_CONDITION);
        assertThat(r.senseKey()).isEqualTo(5);
        assertThat(r.additionalSenseCode()).isEqualTo(0x21);
    }

    @Test
    void aTargetLogoutEndsTheChannelWithItsReasonInWords() throws Exception {
        loggedIn(2, true);
        CompletableFuture<ScsiResult> read = CompletableFuture.supplyAsync(() -> run(() ->
                channel.execute(0, ScsiCdbs.testUnitReady(), 0, null)));
        target.nextIu();

        target.send(shortIu(0x80, 8, 0));

        assertThatThrownBy(() -> read.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(EOFException.class).hasMessageContaining("SRP_T_LOGOUT")
                .hasMessageContaining("invalid length for the information unit type");
    }

    @Test
    void malformedOrUnexpectedIusAreProtocolErrors() throws Exception {
        loggedIn(4, true);
        for (byte[] bad : new byte[][] {new byte[] {(byte) 0xC1, 0, 0, 0, 0, 0, 0, 1}, shortIu(0x02, 0, 5),
            response(1, 1, 0, 0x02, 0, new byte[0], 300)}) {
            CompletableFuture<ScsiResult> tur = CompletableFuture.supplyAsync(() -> run(() ->
                    channel.execute(0, ScsiCdbs.testUnitReady(), 0, null)));
            target.nextIu();
            target.send(bad);
            assertThatThrownBy(() -> tur.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(SrpProtocolException.class);
        }
    }

    @Test
    void noCommandGoesWithoutACredit() throws Exception {
        loggedIn(1, true);
        channel.sendCommand(0, 1, 0, ScsiCdbs.testUnitReady(), 0, 0);
        assertThat(channel.requestLimit()).isZero();

        assertThatThrownBy(() -> channel.sendCommand(1, 2, 0, ScsiCdbs.testUnitReady(), 0, 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("credit");
    }

    @Test
    void withoutACreditACommandWaitsForTheTargetsCreditRequest() throws Exception {
        loggedIn(1, true);
        CompletableFuture<ScsiResult> first = CompletableFuture.supplyAsync(() -> run(() ->
                channel.execute(0, ScsiCdbs.testUnitReady(), 0, null)));
        target.send(response(target.nextIu().getLong(8), 0, 0, 0, 0, new byte[0])); // the credit is kept
        assertThat(first.get(10, TimeUnit.SECONDS).good()).isTrue();
        assertThat(channel.requestLimit()).isZero();

        CompletableFuture<ScsiResult> second = CompletableFuture.supplyAsync(() -> run(() ->
                channel.execute(0, ScsiCdbs.testUnitReady(), 0, null)));
        target.send(creditRequest(1, 0x99));
        ByteBuffer answer = target.nextIu();
        assertThat(answer.get(0)).as("SRP_CRED_RSP first").isEqualTo((byte) 0x41);
        ByteBuffer cmd = target.nextIu();
        assertThat(cmd.get(0)).as("then the SRP_CMD").isEqualTo((byte) 0x02);
        target.send(response(cmd.getLong(8), 1, 0, 0, 0, new byte[0]));

        assertThat(second.get(10, TimeUnit.SECONDS).good()).isTrue();
        assertThat(channel.requestLimit()).isEqualTo(1);
    }

    @Test
    void aRefusalIsALoginFailureWithTheRejectsReason() throws Exception {
        target = new ScriptedSrpTarget(request -> null);
        target.rejectWith(new SrpLoginReject(SrpLoginReject.IU_LENGTH_TOO_LARGE, 0, 2).encode());
        assertThatThrownBy(this::connect).isInstanceOfSatisfying(SrpLoginRefused.class, e -> {
            assertThat(e.reason()).isEqualTo(SrpLoginReject.IU_LENGTH_TOO_LARGE);
            assertThat(e).hasMessageContaining("requested maximum initiator to target IU length too large");
        });

        target.rejectWith(new byte[0]);
        assertThatThrownBy(this::connect).isInstanceOfSatisfying(SrpLoginRefused.class,
                e -> assertThat(e.reason()).isEqualTo(SrpLoginRefused.NO_REASON_GIVEN));
    }

    @Test
    void anAcceptWeCannotUseIsRefusedByUs() throws Exception {
        target = new ScriptedSrpTarget(request -> new byte[] {1, 2, 3});
        assertThatThrownBy(this::connect).isInstanceOf(SrpProtocolException.class)
                .hasMessageContaining("no SRP_LOGIN_RSP");
        target.close();
        target = new ScriptedSrpTarget(request -> new SrpLoginResponse(8, 0, SrpChannel.IU_LENGTH, 4096,
                SrpIu.BUFFER_FORMAT_DIRECT, 0).encode());
        assertThatThrownBy(this::connect).isInstanceOf(SrpProtocolException.class)
                .hasMessageContaining("up to 4096 bytes");
    }

    // ------------------------------------------------------------------ IUs the target sends

    private static byte[] shortIu(int opcode, int word, long tag) {
        return ByteBuffer.allocate(16).put(0, (byte) opcode).putInt(4, word).putLong(8, tag).array();
    }

    private static byte[] creditRequest(int delta, long tag) {
        return shortIu(0x81, delta, tag);
    }

    /** An SRP_RSP (r16a): delta, flags, status, the data-in residual (also in the data-out field), sense. */
    private static byte[] response(long tag, int delta, int status, int flags, int residual, byte[] sense) {
        return response(tag, delta, status, flags, residual, sense, sense.length);
    }

    private static byte[] response(long tag, int delta, int status, int flags, int residual, byte[] sense,
                                   int senseLength) {
        ByteBuffer b = ByteBuffer.allocate(36 + sense.length);
        b.put(0, (byte) 0xC1).putInt(4, delta).putLong(8, tag).put(18, (byte) flags).put(19, (byte) status)
                .putInt(20, residual).putInt(24, residual).putInt(28, senseLength).put(36, sense);
        return b.array();
    }

    @FunctionalInterface
    private interface Io<T> {
        T get() throws Exception;
    }

    private static <T> T run(Io<T> io) {
        try {
            return io.get();
        } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
        }
    }
}
