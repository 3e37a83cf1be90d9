package org.jtarget.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.ArrayList;
import java.util.List;

/** {@code jtargetctl session list | kill ID}: the iSCSI sessions open now. */
@Command(name = "session", description = "List or end iSCSI sessions.", synopsisSubcommandLabel = "(list | kill)")
final class SessionCommand {

    @ParentCommand
    Jtargetctl ctl;

    @Command(name = "list", description = {"List the open sessions with their connections and what they carried:",
        "READs and WRITEs, their data bytes, and the commands that failed."})
    int list() throws Exception {
        JsonNode sessions = ctl.call("GET", "sessions");
        ctl.print(sessions, out -> {
            Table t = new Table("ID", "INITIATOR", "TARGET", "ISID", "PEER", "READS", "WRITES", "READ", "WRITTEN",
                    "FAILED");
            for (JsonNode s : sessions) {
                List<String> peers = new ArrayList<>();
                s.path("connections").forEach(c -> peers.add(c.path("peer").asText()));
                t.row(s.path("id").asInt(), s.path("initiator").asText(),
                        s.path("target").isNull() ? "(discovery)" : s.path("target").asText(), s.path("isid").asText(),
                        String.join(",", peers), s.path("commands").path("read").asLong(),
                        s.path("commands").path("write").asLong(), Jtargetctl.bytes(s.path("dataBytes").path("read").asLong()),
                        Jtargetctl.bytes(s.path("dataBytes").path("write").asLong()), s.path("failedCommands").asLong());
            }
            t.print(out);
        });
        return 0;
    }

    @Command(name = "kill", description = {"End a session: its initiator is asked to log out, and what is left after",
        "two seconds is closed. Returns once the session has ended."})
    int kill(@Parameters(paramLabel = "ID", description = "the session's id (ID column of session list)") int id)
            throws Exception {
        JsonNode r = ctl.call("DELETE", "sessions/" + id);
        ctl.print(r, out -> out.println("session " + r.path("id").asInt() + " of " + r.path("initiator").asText()
                + " ended (" + r.path("ended").asText() + ")"));
        return 0;
    }
}
