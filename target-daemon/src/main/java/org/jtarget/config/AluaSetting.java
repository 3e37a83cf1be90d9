package org.jtarget.config;

/**
 * The {@code alua-state:} values a portal may start in: the four asymmetric access states a target
 * port group may be configured in (SPC-4 5.15.2.4; transitioning is entered only by an implicit change,
 * never by configuration). The config's own names; {@code daemon} maps them to the SCSI layer's state,
 * so the YAML model does not depend on the SCSI core.
 */
public enum AluaSetting {
    ACTIVE_OPTIMIZED("active-optimized"),
    ACTIVE_NON_OPTIMIZED("active-non-optimized"),
    STANDBY("standby"),
    UNAVAILABLE("unavailable");

    private final String configName;

    AluaSetting(String configName) {
        this.configName = configName;
    }

    /** The {@code alua-state:} config value. */
    public String configName() {
        return configName;
    }

    /** The setting of an {@code alua-state:} config value, or null. */
    public static AluaSetting ofConfigName(String name) {
        for (AluaSetting s : values()) {
            if (s.configName.equals(name)) {
                return s;
            }
        }
        return null;
    }
}
