package org.jtarget.fabric.rdma;

/**
 * The outcome of decoding one of an RDMA fabric's control messages (iSER's Hello and HelloReply,
 * SRP's login exchange and other control-path information units, the connection manager's
 * private data): the value, or why the bytes are not one. Malformed input is an answer, never an
 * exception, so that a peer's bad bytes end its own connection and nothing else.
 *
 * @param <T> the decoded message
 */
public sealed interface Decoded<T> {

    /** The bytes were a well-formed message. */
    record Ok<T>(T value) implements Decoded<T> {
    }

    /** The bytes were not; {@code reason} names what was wrong, for the one log line. */
    record Malformed<T>(String reason) implements Decoded<T> {
    }

    static <T> Decoded<T> ok(T value) {
        return new Ok<>(value);
    }

    static <T> Decoded<T> malformed(String reason) {
        return new Malformed<>(reason);
    }
}
