package org.jtarget.rdma;

import io.netty.buffer.ByteBuf;

/** The end of one access served by a {@link RemoteAccessHandler}; called exactly once, from any thread. */
@FunctionalInterface
public interface RemoteAccessCompletion {

    /**
     * @param status what the requester sees: SUCCESS, REM_ACCESS_ERR for a refusal, REM_OP_ERR when
     *               the handler could not do it (a store I/O error)
     * @param data   for a successful read, the bytes read (consumed here); otherwise null
     */
    void complete(WorkCompletionStatus status, ByteBuf data);
}
