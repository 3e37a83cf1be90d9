package org.jtarget.fabric.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.jtarget.rdma.cm.ConnectionManager;
import org.junit.jupiter.api.Test;

class EndpointHandshakeTest {

    @Test
    void aRequestCarriesTheEndpointName() {
        byte[] request = EndpointHandshake.request("db-log");
        assertThat(request).startsWith(1, 6);
        assertThat(EndpointHandshake.requestedName(request)).isEqualTo("db-log");
        assertThat(EndpointHandshake.requestedName(EndpointHandshake.request("é".repeat(32)))).isEqualTo("é".repeat(32));
    }

    @Test
    void malformedRequestsHaveNoName() {
        assertThat(EndpointHandshake.requestedName(null)).isNull();
        assertThat(EndpointHandshake.requestedName(new byte[0])).isNull();
        assertThat(EndpointHandshake.requestedName(new byte[] {2, 1, 'a'})).as("version 2").isNull();
        assertThat(EndpointHandshake.requestedName(new byte[] {1, 2, 'a'})).as("truncated").isNull();
        assertThat(EndpointHandshake.requestedName(new byte[] {1, 1, 'a', 'b'})).as("trailing bytes").isNull();
        assertThat(EndpointHandshake.requestedName(new byte[] {1, 0})).as("empty name").isNull();
        assertThatThrownBy(() -> EndpointHandshake.request("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EndpointHandshake.request("x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anAcceptCarriesRkeyBlockSizeAndLength() {
        EndpointHandshake.Accepted a = EndpointHandshake.accepted(EndpointHandshake.accept(0x1234, 4096, 1L << 40));
        assertThat(a).isEqualTo(new EndpointHandshake.Accepted(0x1234, 4096, 1L << 40));
        assertThat(a.blockCount()).isEqualTo(1L << 28);
        assertThat(EndpointHandshake.accepted(new byte[15])).isNull();
        assertThat(EndpointHandshake.accepted(EndpointHandshake.accept(1, 512, 1000))).as("partial block").isNull();
        assertThat(EndpointHandshake.accepted(EndpointHandshake.accept(1, 0, 1024))).isNull();
    }

    @Test
    void aRejectSaysWhyForPeopleAndPrograms() {
        byte[] r = EndpointHandshake.reject(EndpointHandshake.Rejection.UNKNOWN_ENDPOINT, "no endpoint 'x'");
        assertThat(EndpointHandshake.rejection(r)).isEqualTo(EndpointHandshake.Rejection.UNKNOWN_ENDPOINT);
        assertThat(EndpointHandshake.describeReject(r)).isEqualTo("rejected (unknown endpoint): no endpoint 'x'");
        assertThat(EndpointHandshake.describeReject(new byte[0])).isEqualTo("rejected");
        assertThat(EndpointHandshake.describeReject(new byte[] {99, 'z'})).isEqualTo("rejected");
        byte[] longText = EndpointHandshake.reject(EndpointHandshake.Rejection.UNAVAILABLE, "y".repeat(500));
        assertThat(longText).hasSize(ConnectionManager.MAX_PRIVATE_DATA);
        assertThat(new String(longText, 1, longText.length - 1, StandardCharsets.UTF_8)).isEqualTo("y".repeat(195));
    }
}
