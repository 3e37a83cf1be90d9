package org.jtarget.fabric.iscsi.iser;

/**
 * The outcome of decoding one of iSER's rarely sent messages (Hello, HelloReply, the connection
 * manager's private data): the value, or why the bytes are not one. Malformed input is an
 * answer, never an exception, so that a peer's bad bytes end its own connection and nothing else.
 *
 * @param <T> the decoded message
 */
public sealed interface IserDecoded<T> {

    /** The bytes were a well-formed message. */
    record Ok<T>(T value) implements IserDecoded<T> {
    }

    /** The bytes were not; {@code reason} names what was wrong, for the one log line. */
    record Malformed<T>(String reason) implements IserDecoded<T> {
    }

    static <T> IserDecoded<T> ok(T value) {
        return new Ok<>(value);
    }

    static <T> IserDecoded<T> malformed(String reason) {
        return new Malformed<>(reason);
    }
}
