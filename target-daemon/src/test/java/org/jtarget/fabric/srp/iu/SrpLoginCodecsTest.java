package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jtarget.fabric.srp.iu.SrpTestSupport.bytes;
import static org.jtarget.fabric.srp.iu.SrpTestSupport.malformed;
import static org.jtarget.fabric.srp.iu.SrpTestSupport.ok;

/** The login exchange and port identifiers (SRP r16a, SRP-2) against bytes written out by hand. */
class SrpLoginCodecsTest {

    /** GID interface identifier of the initiator's port (EUI-64 of MAC 52:54:00:12:34:56). */
    private static final long INITIATOR_GUID = 0x505400fffe123456L;
    /** The target's id_ext and ioc_guid, as Linux's ib_srpt makes both of its node GUID. */
    private static final long TARGET_GUID = 0x505400fffe654321L;

    /**
     * What Linux's ib_srp sends through rdma_cm ({@code struct srp_login_req_rdma}): tag 0, direct
     * and indirect formats, single channel with immediate data, 8260-byte IUs (8192 + 68), the
     * initiator extension 0 and the GID's interface id, the target's id_ext and ioc_guid, and
     * immediate data at 68.
     */
    private static final String LINUX_RDMA_CM_LOGIN = "0000000000000000" + "0006" + "80" + "00" + "00002044"
            + "0000000000000000" + "505400fffe123456"
            + "505400fffe654321" + "505400fffe654321"
            + "0044" + "000000000000";

    @Test
    void linuxRdmaCmLoginRequestDecodes() {
        SrpLoginRequest login = ok(SrpLoginRequest.decode(bytes(LINUX_RDMA_CM_LOGIN)));
        assertThat(login.form()).isEqualTo(SrpLoginRequest.Form.RDMA_CM);
        assertThat(login.tag()).isZero();
        assertThat(login.maxInitiatorToTargetIuLength()).isEqualTo(8260);
        assertThat(login.bufferFormats()).isEqualTo(SrpIu.BUFFER_FORMAT_DIRECT | SrpIu.BUFFER_FORMAT_INDIRECT);
        assertThat(login.multiChannelAction()).isEqualTo(SrpLoginRequest.SINGLE_CHANNEL);
        assertThat(login.immediateDataRequested()).isTrue();
        assertThat(login.immediateDataOffset()).isEqualTo(68);
        assertThat(login.initiatorPortId()).isEqualTo(new SrpPortId(0, INITIATOR_GUID));
        assertThat(login.initiatorPortId().name()).isEqualTo("0x0000000000000000505400fffe123456");
        assertThat(login.targetPortId()).isEqualTo(SrpPortId.of(TARGET_GUID, TARGET_GUID));
    }

    @Test
    void rdmaCmLoginRequestEncodesToTheSameBytes() {
        SrpLoginRequest login = new SrpLoginRequest(SrpLoginRequest.Form.RDMA_CM, 0, 8260, 6,
                SrpLoginRequest.IMMEDIATE_DATA_REQUESTED, 68, new SrpPortId(0, INITIATOR_GUID),
                SrpPortId.of(TARGET_GUID, TARGET_GUID));
        assertThat(login.encode()).isEqualTo(bytes(LINUX_RDMA_CM_LOGIN));
    }

    @Test
    void infinibandCmLoginRequestDecodesAndRoundTrips() {
        String ib = "00" + "00000000000000" + "1122334455667788" + "00001000" + "00000000" + "0002" + "01" + "00"
                + "0000" + "0000" + "0000000000000001" + "0000000000000002"
                + "0000000000000003" + "0000000000000004";
        byte[] privateData = Arrays.copyOf(bytes(ib), 92); // the IB CM REQ's private data is 92 bytes
        SrpLoginRequest login = ok(SrpLoginRequest.decode(privateData));
        assertThat(login).isEqualTo(new SrpLoginRequest(SrpLoginRequest.Form.IB_CM, 0x1122334455667788L, 4096,
                SrpIu.BUFFER_FORMAT_DIRECT, SrpLoginRequest.MULTIPLE_INDEPENDENT_CHANNELS, 0,
                new SrpPortId(1, 2), new SrpPortId(3, 4)));
        assertThat(login.immediateDataRequested()).isFalse();
        assertThat(login.encode()).isEqualTo(bytes(ib));
        assertThat(ok(SrpLoginRequest.decode(login.encode()))).isEqualTo(login);
    }

    @Test
    void loginRequestOfAnyOtherLengthOrOpcodeIsMalformed() {
        assertThat(malformed(SrpLoginRequest.decode(null))).contains("0 bytes");
        assertThat(malformed(SrpLoginRequest.decode(new byte[0]))).contains("0 bytes");
        assertThat(malformed(SrpLoginRequest.decode(new byte[55]))).contains("55 bytes");
        assertThat(malformed(SrpLoginRequest.decode(new byte[60]))).contains("60 bytes");
        byte[] rdmaCm = bytes(LINUX_RDMA_CM_LOGIN);
        rdmaCm[11] = (byte) SrpIu.CMD;
        assertThat(malformed(SrpLoginRequest.decode(rdmaCm))).contains("SRP_CMD");
        byte[] ib = new byte[64];
        ib[0] = (byte) SrpIu.LOGIN_RSP;
        assertThat(malformed(SrpLoginRequest.decode(ib))).contains("SRP_LOGIN_RSP");
    }

    @Test
    void loginResponseEncodesTo52BytesAndRoundTrips() {
        SrpLoginResponse rsp = new SrpLoginResponse(64, 0x0102030405060708L, 8260, 8260,
                SrpIu.BUFFER_FORMAT_DIRECT | SrpIu.BUFFER_FORMAT_INDIRECT,
                SrpLoginResponse.IMMEDIATE_DATA_SUPPORTED | SrpLoginResponse.EXISTING_CHANNELS_TERMINATED);
        byte[] encoded = rsp.encode();
        assertThat(encoded).isEqualTo(bytes("c0000000" + "00000040" + "0102030405060708" + "00002044" + "00002044"
                + "0006" + "81" + "00".repeat(25)));
        SrpLoginResponse decoded = ok(SrpLoginResponse.decode(Arrays.copyOf(encoded, 196))); // padded private data
        assertThat(decoded).isEqualTo(rsp);
        assertThat(decoded.immediateDataSupported()).isTrue();
        assertThat(decoded.multiChannelResult()).isEqualTo(SrpLoginResponse.EXISTING_CHANNELS_TERMINATED);
    }

    @Test
    void loginResponseTooShortOrOfAnotherOpcodeIsMalformed() {
        assertThat(malformed(SrpLoginResponse.decode(new byte[51]))).contains("51 bytes");
        assertThat(malformed(SrpLoginResponse.decode(null))).contains("0 bytes");
        assertThat(malformed(SrpLoginResponse.decode(new SrpLoginReject(0, 0, 0).encode()))).contains("32 bytes");
        byte[] reject = Arrays.copyOf(new SrpLoginReject(0, 0, 0).encode(), 52);
        assertThat(malformed(SrpLoginResponse.decode(reject))).contains("SRP_LOGIN_REJ where SRP_LOGIN_RSP");
    }

    @Test
    void loginRejectEncodesTo32BytesAndRoundTrips() {
        SrpLoginReject rej = new SrpLoginReject(SrpLoginReject.BUFFER_FORMAT_NOT_SUPPORTED, -1L,
                SrpIu.BUFFER_FORMAT_DIRECT);
        byte[] encoded = rej.encode();
        assertThat(encoded).isEqualTo(bytes("c2000000" + "00010004" + "ffffffffffffffff" + "0000000000000000"
                + "0002" + "000000000000"));
        assertThat(ok(SrpLoginReject.decode(encoded))).isEqualTo(rej);
        assertThat(malformed(SrpLoginReject.decode(new byte[31]))).contains("31 bytes");
        assertThat(malformed(SrpLoginReject.decode(new byte[32]))).contains("SRP_LOGIN_REQ where SRP_LOGIN_REJ");
    }

    @Test
    void loginRejectReasonsAreDescribedInWords() {
        assertThat(Map.of(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL, "no reason",
                SrpLoginReject.INSUFFICIENT_CHANNEL_RESOURCES, "resources",
                SrpLoginReject.IU_LENGTH_TOO_LARGE, "too large",
                SrpLoginReject.UNABLE_TO_ASSOCIATE_CHANNEL, "I_T nexus",
                SrpLoginReject.BUFFER_FORMAT_NOT_SUPPORTED, "format",
                SrpLoginReject.MULTI_CHANNEL_ACTION_NOT_SUPPORTED, "MULTI-CHANNEL",
                SrpLoginReject.NO_MORE_CHANNELS, "no more", 0x00010007, "unknown reason 0x10007"))
                .allSatisfy((reason, words) -> assertThat(SrpLoginReject.describe(reason)).contains(words));
    }

    @Test
    void portIdNameIsTheCoresSrpPortName() {
        SrpPortId id = SrpPortId.of(0x0002c90300a1b2c3L, 0xfe80000000000001L);
        assertThat(id.name()).isEqualTo("0x0002c90300a1b2c3fe80000000000001");
        assertThat(id).hasToString(id.name());
        assertThat(SrpPortId.parse("0x0002C90300A1B2C3FE80000000000001")).isEqualTo(id);
        assertThat(SrpPortId.parse("0X0002c90300a1b2c3fe80000000000001")).isEqualTo(id);
        assertThat(SrpPortId.parse("0002c90300a1b2c3fe80000000000001")).isEqualTo(id);
        assertThat(SrpPortId.parse(id.name()).hashCode()).isEqualTo(id.hashCode());
    }

    @Test
    void portIdParseRejectsAnythingButThirtyTwoHexDigits() {
        for (String bad : new String[] {"0x", "", "0x0002c90300a1b2c3fe8000000000001",
                "0x0002c90300a1b2c3fe800000000000011", "0x0002c90300a1b2c3fe8000000000000g",
                "0x+002c90300a1b2c3fe80000000000001"}) {
            assertThatThrownBy(() -> SrpPortId.parse(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("SRP port name");
        }
    }

    @Test
    void portIdReadsAndWritesItsSixteenBytes() {
        ByteBuf buf = Unpooled.buffer(20).writerIndex(20);
        SrpPortId id = new SrpPortId(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
        id.write(buf, 2);
        assertThat(buf.getByte(2)).isEqualTo((byte) 1);
        assertThat(buf.getByte(17)).isEqualTo((byte) 0x10);
        assertThat(SrpPortId.read(buf, 2)).isEqualTo(id);
    }
}
