package org.jtarget.it;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Parameter crossing for tests run over several transports. */
final class Crossed {

    private Crossed() {
    }

    /** Each of {@code firsts} followed by each of {@code cases}' arguments: [t1, a, b], ..., [t2, a, b], .... */
    static Stream<Arguments> with(Object[] firsts, Stream<Arguments> cases) {
        var all = cases.toList();
        return Stream.of(firsts).flatMap(t -> all.stream().map(a -> {
            Object[] given = a.get();
            Object[] with = new Object[given.length + 1];
            with[0] = t;
            System.arraycopy(given, 0, with, 1, given.length);
            return Arguments.of(with);
        }));
    }
}
