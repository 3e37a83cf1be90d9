package org.jtarget.backstore.spi;

import org.assertj.core.api.Condition;

/** AssertJ condition for store tests: a {@link StoreOpenException} about one setting. */
public final class OpenRefusals {

    private OpenRefusals() {
    }

    /** The throwable is a refusal to open that names {@code setting}. */
    public static Condition<Throwable> about(StoreOpenException.Setting setting) {
        return new Condition<>(e -> e instanceof StoreOpenException s && s.setting() == setting,
                "a StoreOpenException about " + setting);
    }
}
