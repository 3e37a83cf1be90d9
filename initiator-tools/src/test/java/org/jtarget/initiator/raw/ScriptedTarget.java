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
        RawPdu pdu = PduReader.read(in, 1 << 20);
        if (pdu == null) {
            throw new IOException("client closed the connection");
        }
        return pdu;
    }

    void reply(RawPdu pdu) throws IOException {
        out.write(pdu.toBytes());
        out.flush();
    }

    /** A target PDU with StatSN/ExpCmdSN/MaxCmdSN filled in. */
    RawPdu response(int opcode, int itt, int expCmdSn) {
        return RawPdu.of(opcode).flags(RawPdu.FINAL_BIT).itt(itt).word24(statSn++).word28(expCmdSn)
                .word32(expCmdSn + 31);
    }

    /** Answers both login stages of {@link RawIscsiClient#login}, declaring {@code targetMrdsl}. */
    void acceptLogin(int targetMrdsl) throws IOException {
        RawPdu sec = receive();
        RawPdu rsp = response(IscsiOpcodes.LOGIN_RESPONSE, sec.itt(), sec.word24()).flags(0x81).tsih(0)
                .data(TextKeys.encode(Map.of("AuthMethod", "None")));
        rsp.isid(sec.isid());
        reply(rsp);
        RawPdu op = receive();
        reply(response(IscsiOpcodes.LOGIN_RESPONSE, op.itt(), op.word24()).flags(0x87).tsih(0x55).isid(op.isid())
                .data(TextKeys.encode(Map.of("MaxRecvDataSegmentLength", Integer.toString(targetMrdsl)))));
    }

    void awaitScript() throws Exception {
        done.get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
