package org.jtarget.daemon;

/**
 * The config text the runtime tests start from: memory stores ram0, ram1 and ram2 (1 MiB each)
 * and one target on one TCP portal of 127.0.0.1.
 */
public final class MemoryTargetYaml {

    private MemoryTargetYaml() {
    }

    /**
     * @param acl   the target's {@code acl:} value
     * @param luns  its {@code luns:} value
     * @param extra top-level text appended (a {@code management:} section...)
     */
    public static String of(int port, String iqn, String acl, String luns, String extra) {
        return """
                daemon: { buffer-pool: { pinned-size: 0 } }
                portals:
                  - { name: default, listen: "127.0.0.1:%d" }
                backstores:
                  - { name: ram0, type: memory, size: 1MiB }
                  - { name: ram1, type: memory, size: 1MiB }
                  - { name: ram2, type: memory, size: 1MiB }
                targets:
                  - iqn: %s
                    portals: [default]
                    acl: %s
                    luns: %s
                %s""".formatted(port, iqn, acl, luns, extra);
    }
}
