package org.jtarget.config;

/**
 * A configuration problem, told in one line that names the file, the key and the problem, e.g.
 * {@code conf/jtarget.yaml: targets[0].luns[1].backstore: unknown backstore 'foo'}. The daemon
 * prints exactly this line and exits with status 2 (systemd's {@code RestartPreventExitStatus=2}
 * then stops a bad config from restart-looping).
 */
public final class ConfigException extends Exception {

    private final String source;
    private final String key;
    private final String problem;

    /**
     * @param source  the config file as the user named it, or null when not known (yet)
     * @param key     the key path ({@code backstores[1].path}), or null for the whole file
     * @param problem what is wrong, one line
     */
    public ConfigException(String source, String key, String problem) {
        this(source, key, problem, null);
    }

    public ConfigException(String source, String key, String problem, Throwable cause) {
        super(compose(source, key, problem), cause);
        this.source = source;
        this.key = key;
        this.problem = oneLine(problem);
    }

    /** The same problem, attributed to {@code file} (for problems found after loading, e.g. opening a store). */
    public ConfigException withSource(String file) {
        return source != null ? this : new ConfigException(file, key, problem, getCause());
    }

    public String source() {
        return source;
    }

    public String key() {
        return key;
    }

    public String problem() {
        return problem;
    }

    private static String compose(String source, String key, String problem) {
        StringBuilder sb = new StringBuilder();
        if (source != null) {
            sb.append(source).append(": ");
        }
        if (key != null && !key.isEmpty()) {
            sb.append(key).append(": ");
        }
        return sb.append(oneLine(problem)).toString();
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
    }
}
