package org.jtarget.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jtarget.config.ManagementConfig;
import org.jtarget.daemon.api.ApiClient;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code jtargetctl}: the running daemon's management API from the command line, on its Unix
 * socket (default {@value ManagementConfig#DEFAULT_SOCKET}) or on its TCP listener with a token.
 * Tables for people by default, the API's JSON as it is with {@code --json}.
 *
 * <p>Exit status: 0 done; 1 the daemon refused (its message on stderr); 2 usage; 3 the daemon
 * could not be reached.
 */
@Command(name = "jtargetctl", mixinStandardHelpOptions = true, versionProvider = Jtargetctl.Version.class,
        // one usage line and headed sections: help2man makes the man page of this
        customSynopsis = "jtargetctl [--json] [--socket=PATH | --http=HOST:PORT --token-file=PATH] COMMAND [ARGS...]",
        description = "Manage a running jtargetd through its management API. Every command takes --help.",
        optionListHeading = "%nOptions:%n",
        commandListHeading = "%nCommands:%n",
        subcommands = {LsCommand.class, SessionCommand.class, EditCommands.Lun.class, EditCommands.Acl.class,
            EditCommands.Alua.class, EditCommands.Backstore.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:done", "1:the daemon refused (its message on stderr)", "2:usage",
            "3:the daemon could not be reached"})
public final class Jtargetctl {

    static final int EXIT_REFUSED = 1;
    static final int EXIT_UNREACHABLE = 3;

    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--socket", scope = ScopeType.INHERIT, paramLabel = "PATH",
            description = "the daemon's management socket (default: ${DEFAULT-VALUE})")
    Path socket = Path.of(ManagementConfig.DEFAULT_SOCKET);

    @Option(names = "--http", scope = ScopeType.INHERIT, paramLabel = "HOST:PORT",
            description = "use the TCP management listener instead of the socket (needs --token-file)")
    String http;

    @Option(names = "--token-file", scope = ScopeType.INHERIT, paramLabel = "PATH",
            description = "file holding the API token (management.token-file of the daemon)")
    Path tokenFile;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "print the API's JSON instead of tables")
    boolean json;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with jtargetctl's error handling (tests run it with their own writers). */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Jtargetctl());
        cli.setUsageHelpWidth(100);
        addHelpOption(cli);
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            PrintWriter err = line.getErr();
            if (e instanceof Refused r) {
                err.println("jtargetctl: " + r.getMessage() + " (" + r.code + ")");
                return EXIT_REFUSED;
            }
            if (e instanceof IOException) {
                err.println("jtargetctl: cannot reach the daemon: " + e.getMessage());
                return EXIT_UNREACHABLE;
            }
            throw e;
        });
        return cli;
    }

    /** {@code -h/--help} on every subcommand, however deep (the root has it from the mixin). */
    private static void addHelpOption(CommandLine line) {
        for (CommandLine sub : line.getSubcommands().values()) {
            if (sub.getCommandSpec().findOption("--help") == null) {
                sub.getCommandSpec().addOption(CommandLine.Model.OptionSpec.builder("-h", "--help").usageHelp(true)
                        .description("Show this help and exit.").build());
            }
            addHelpOption(sub);
        }
    }

    /** The daemon refused a request: its stable code and message. */
    static final class Refused extends Exception {
        final String code;

        Refused(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }

    @Command(name = "status", description = {"Show the daemon's state: version, pid, uptime, what it serves,",
        "and the long operations running (SANITIZE, EXTENDED COPY): percent, rate, time left."})
    int status() throws IOException, Refused {
        ObjectNode d = (ObjectNode) call("GET", "daemon");
        JsonNode tasks = "running".equals(d.path("state").asText()) ? call("GET", "tasks") : JSON.createArrayNode();
        d.set("tasks", tasks);
        print(d, out -> {
            out.println("jtargetd " + d.path("version").asText() + ", pid " + d.path("pid").asLong() + ", "
                    + d.path("state").asText() + " for " + uptime(d.path("uptimeSeconds").asLong()));
            out.println("config:  " + d.path("configFile").asText());
            out.println("serving: " + d.path("summary").asText("-"));
            if (d.hasNonNull("ha")) {
                out.println("ha:      " + d.path("ha").asText());
            }
            for (JsonNode t : tasks) {
                out.println("work:    " + task(t));
            }
        });
        return 0;
    }

    /**
     * "sanitize-overwrite of iqn...:disk LUN 0: 37.5% of 64.0MiB, 1.0MiB/s, 40s left", or for an HA
     * resync "ha-resync of backstore ram0: ...".
     */
    static String task(JsonNode t) {
        String of = t.path("backstore").isTextual() ? "backstore " + t.path("backstore").asText()
                : t.path("target").asText() + " LUN " + t.path("lun").asInt();
        return t.path("kind").asText() + " of " + of + ": "
                + String.format(Locale.ROOT, "%.1f%%", t.path("percent").asDouble()) + " of "
                + bytes(t.path("totalBytes").asLong()) + ", " + bytes(t.path("bytesPerSecond").asLong()) + "/s, "
                + (t.path("secondsLeft").isNull() ? "time left unknown" : uptime(t.path("secondsLeft").asLong()) + " left");
    }

    /** A byte count for people: 512B, 4.0KiB, 1.5MiB, 2.0GiB, 1.0TiB. */
    static String bytes(long n) {
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        if (n < 1024) {
            return n + "B";
        }
        double v = n;
        int unit = -1;
        while (v >= 1024 && unit < units.length - 1) {
            v /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f%s", v, units[unit]);
    }

    /** 3d 4h 5m, 4h 5m 6s, 5m 6s or 6s. */
    static String uptime(long seconds) {
        long d = seconds / 86400;
        long h = seconds / 3600 % 24;
        long m = seconds / 60 % 60;
        long s = seconds % 60;
        return d > 0 ? d + "d " + h + "h " + m + "m" : h > 0 ? h + "h " + m + "m " + s + "s" : m > 0 ? m + "m " + s + "s"
                : s + "s";
    }

    @Command(name = "reload", description = {"Make the daemon read its config file again and apply it (as SIGHUP does).",
        "A bad file, or a change that needs a restart, changes nothing: the daemon's message names the key."})
    int reload() throws IOException, Refused {
        JsonNode r = call("POST", "reload");
        print(r, out -> out.println("reloaded " + r.path("configFile").asText() + ": " + r.path("targets").asInt()
                + " target(s)"));
        return 0;
    }

    @Command(name = "save", description = {"Write the live LUN, ACL and ALUA edits into the daemon's config file.",
        "Comments and formatting of the file are lost; refused when the file changed since the daemon read it."})
    int save() throws IOException, Refused {
        JsonNode r = call("POST", "save");
        print(r, out -> {
            if (r.path("saved").asBoolean()) {
                out.println("saved " + r.path("edits").asInt() + " edit(s) to " + r.path("configFile").asText());
                out.println("note: " + r.path("note").asText());
            } else {
                out.println("nothing to save: " + r.path("message").asText());
            }
        });
        return 0;
    }

    @Command(name = "completion", description = {"Print a bash completion script for jtargetctl.",
        "Use: source <(jtargetctl completion)   or save it as /etc/bash_completion.d/jtargetctl"})
    int completion() {
        PrintWriter out = spec.commandLine().getOut();
        out.print(AutoComplete.bash("jtargetctl", spec.commandLine()));
        out.flush();
        return 0;
    }

    /** Sends one request and returns the answer's JSON; a refusal is thrown with the daemon's words. */
    JsonNode call(String method, String path) throws IOException, Refused {
        return call(method, path, null);
    }

    /** {@link #call(String, String)} with a JSON body (null for none). */
    JsonNode call(String method, String path, String body) throws IOException, Refused {
        ApiClient.Response r = client().send(method, path, body);
        JsonNode answer;
        try {
            answer = JSON.readTree(r.body());
        } catch (IOException e) {
            throw new IOException("answer " + r.status() + " is not JSON: " + r.body(), e);
        }
        if (!r.ok()) {
            throw new Refused(answer.path("code").asText("http-" + r.status()), answer.path("message").asText(r.body()));
        }
        return answer;
    }

    /** Prints {@code body} as JSON when asked to, else lets {@code table} print it for people. */
    void print(JsonNode body, java.util.function.Consumer<PrintWriter> table) throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(body));
        } else {
            table.accept(out);
        }
        out.flush();
    }

    private ApiClient client() throws IOException {
        if (http == null) {
            return ApiClient.unix(socket);
        }
        if (tokenFile == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--http needs --token-file");
        }
        int colon = http.lastIndexOf(':');
        if (colon <= 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--http: expected HOST:PORT, got " + http);
        }
        String token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        String host = http.substring(0, colon).replace("[", "").replace("]", "");
        try {
            return ApiClient.tcp(host, Integer.parseInt(http.substring(colon + 1)), token);
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--http: bad port in " + http);
        }
    }

    /** The version of the jar, as the daemon's API reports its own. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Jtargetctl.class.getPackage().getImplementationVersion();
            return new String[] {"jtargetctl " + (v == null ? "development" : v)};
        }
    }
}
