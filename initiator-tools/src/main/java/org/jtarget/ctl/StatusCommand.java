package org.jtarget.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

import java.util.concurrent.Callable;

/** {@code jtargetctl status}: the daemon's version, pid, state, uptime and what it serves. */
@Command(name = "status", description = "Show the daemon's state: version, pid, uptime, what it serves.")
final class StatusCommand implements Callable<Integer> {

    @ParentCommand
    Jtargetctl ctl;

    @Override
    public Integer call() throws Exception {
        JsonNode d = ctl.call("GET", "daemon");
        ctl.print(d, out -> {
            out.println("jtargetd " + d.path("version").asText() + ", pid " + d.path("pid").asLong() + ", "
                    + d.path("state").asText() + " for " + uptime(d.path("uptimeSeconds").asLong()));
            out.println("config:  " + d.path("configFile").asText());
            out.println("serving: " + d.path("summary").asText("-"));
            if (!d.path("ha").isNull() && !d.path("ha").isMissingNode()) {
                out.println("ha:      " + d.path("ha").asText());
            }
        });
        return 0;
    }

    /** 3d 4h 5m 6s, leaving out the leading zero units. */
    static String uptime(long seconds) {
        long d = seconds / 86400;
        long h = seconds / 3600 % 24;
        long m = seconds / 60 % 60;
        long s = seconds % 60;
        return d > 0 ? d + "d " + h + "h " + m + "m" : h > 0 ? h + "h " + m + "m " + s + "s" : m > 0 ? m + "m " + s + "s"
                : s + "s";
    }
}
