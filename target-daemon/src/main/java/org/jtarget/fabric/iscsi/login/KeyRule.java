package org.jtarget.fabric.iscsi.login;

import java.util.function.Function;

/**
 * One row of the login key table ({@link OperationalKeys}).
 *
 * @param name                  the key, spelled as in RFC 7143 13
 * @param kind                  the result function or treatment
 * @param min                   the smallest valid number (numerical keys)
 * @param max                   the largest valid number (numerical keys)
 * @param defaultValue          the RFC 7143 default, the result when nobody offers the key (null if none)
 * @param leadingOnly           LO: negotiated on the leading connection only
 * @param irrelevantInDiscovery "Irrelevant when: SessionType=Discovery" in RFC 7143 13
 * @param target                the target's value: its preference (MIN/MAX/AND/OR), its supported
 *                              values in order (LIST), its declaration (DECLARATIVE), or null
 * @param rdmaOnly              a key of iSER (RFC 7145 6): known only over a transport that moves
 *                              data by RDMA; elsewhere it is an unknown key
 */
public record KeyRule(String name, KeyKind kind, long min, long max, String defaultValue, boolean leadingOnly,
                      boolean irrelevantInDiscovery, Function<LoginSettings, String> target, boolean rdmaOnly) {

    boolean numerical() {
        return kind == KeyKind.MIN || kind == KeyKind.MAX || (kind == KeyKind.DECLARATIVE && max > 0);
    }

    boolean bool() {
        return kind == KeyKind.AND || kind == KeyKind.OR;
    }
}
