package org.jtarget.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

import java.util.concurrent.Callable;

/** {@code jtargetctl reload}: the daemon reads its config file again, as on SIGHUP. */
@Command(name = "reload", description = {"Make the daemon read its config file again and apply it (as SIGHUP does).",
    "A bad file, or a change that needs a restart, changes nothing: the daemon's message names the key."})
final class ReloadCommand implements Callable<Integer> {

    @ParentCommand
    Jtargetctl ctl;

    @Override
    public Integer call() throws Exception {
        JsonNode r = ctl.call("POST", "reload");
        ctl.print(r, out -> out.println("reloaded " + r.path("configFile").asText() + ": "
                + r.path("targets").asInt() + " target(s)"));
        return 0;
    }
}
