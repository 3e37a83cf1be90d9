package org.jtarget.initiator.raw;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A one-connection fake target for client tests: runs a script against the accepted socket on its own thread. */
final class ScriptedTarget implements AutoCloseable {

    /** What the fake target does with the connection. */
    interface Script {
        void run(ScriptedTarget t) throws Exception;
    }

    private final ServerSocket server;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private InputStream in;
    private OutputStream out;
    private int statSn = 100;
    /** Digests this fake target reads and writes (switch on after the final login response). */
    boolean headerDigest;
    boolean dataDigest;

    ScriptedTarget(Script script) throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("scripted-target").start(() -> {
            try (Socket s = server.accept()) {
                in = new BufferedInputStream(s.getInputStream());
                out = s.getOutputStream();
                script.run(this);
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
    }

    int port() {
        return server.getLocalPort();
    }

    RawPdu receive() throws IOException {
        RawPdu pdu = PduReader.read(in, 1 << 20, headerDigest, dataDigest);
        if (pdu == null) {
            throw new IOException("client closed the connection");
        }
        return pdu;
    }

    /** Receives a PDU with a data segment as it is, its DataDigest read but not checked (for corrupt ones). */
    RawPdu receiveUncheckedData() throws IOException {
        RawPdu pdu = PduReader.read(in, 1 << 20, headerDigest, false);
        if (pdu == null || pdu.dataSegmentLength() == 0 || in.readNBytes(IscsiDigest.LENGTH).length != 4) {
            throw new IOException("expected a PDU with a data segment and its DataDigest, got " + pdu);
        }
        return pdu;
    }

    void reply(RawPdu pdu) throws IOException {
        replyBytes(pdu.toBytes(headerDigest, dataDigest, null));
    }

    void replyBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** A target PDU with StatSN/ExpCmdSN/MaxCmdSN filled in. */
    RawPdu response(int opcode, int itt, int expCmdSn) {
        return RawPdu.of(opcode).flags(RawPdu.FINAL_BIT).itt(itt).word24(statSn++).word28(expCmdSn)
                .word32(expCmdSn + 31);
    }

    /** Answers both login stages of {@link RawIscsiClient#login}, declaring {@code targetMrdsl}. */
    void acceptLogin(int targetMrdsl) throws IOException {
        acceptLogin(targetMrdsl, Map.of());
    }

    /** As {@link #acceptLogin(int)}, also answering {@code keys} in the operational stage. */
    void acceptLogin(int targetMrdsl, Map<String, String> keys) throws IOException {
        RawPdu sec = receive();
        RawPdu rsp = response(IscsiOpcodes.LOGIN_RESPONSE, sec.itt(), sec.word24()).flags(0x81).tsih(0)
                .data(TextKeys.encode(Map.of("AuthMethod", "None")));
        rsp.isid(sec.isid());
        reply(rsp);
        RawPdu op = receive();
        Map<String, String> answer = new java.util.LinkedHashMap<>(keys);
        answer.put("MaxRecvDataSegmentLength", Integer.toString(targetMrdsl));
        reply(response(IscsiOpcodes.LOGIN_RESPONSE, op.itt(), op.word24()).flags(0x87).tsih(0x55).isid(op.isid())
                .data(TextKeys.encode(answer)));
    }

    void awaitScript() throws Exception {
        done.get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
