package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.fabric.iscsi.login.LoginContext;
import org.jtarget.fabric.iscsi.login.SendTargets;
import org.jtarget.fabric.iscsi.login.TextParameters;

import java.util.List;
import java.util.Map;

/**
 * The text-key services a Text exchange needs (RFC 7143 6.1, Appendix C). The default delegates
 * to {@link TextParameters} and {@link SendTargets}; tests substitute their own so the exchange
 * logic (continuation, tags) is tested on its own.
 */
interface TextCodec {

    TextCodec DEFAULT = new TextCodec() {
        @Override
        public List<Map.Entry<String, String>> parse(ByteBuf buf) {
            return TextParameters.parse(buf);
        }

        @Override
        public ByteBuf encode(List<Map.Entry<String, String>> pairs, ByteBufAllocator alloc) {
            return TextParameters.encode(pairs, alloc);
        }

        @Override
        public List<Map.Entry<String, String>> sendTargets(String value, LoginContext context, String target) {
            return SendTargets.respond(value, context, target);
        }
    };

    List<Map.Entry<String, String>> parse(ByteBuf buf);

    ByteBuf encode(List<Map.Entry<String, String>> pairs, ByteBufAllocator alloc);

    List<Map.Entry<String, String>> sendTargets(String value, LoginContext context, String sessionTargetName);
}
