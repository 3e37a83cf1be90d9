package org.jtarget.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code jtargetctl lun add|remove}, {@code acl add|remove}, {@code alua set} and
 * {@code backstore resize}: live edits. They change the running daemon only; the config file keeps
 * what it says until {@code jtargetctl save} (a reload from it undoes them, or refuses a shrink).
 */
final class EditCommands {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EditCommands() {
    }

    /** A target's path segment: IQNs hold ':' and '.', which are sent encoded. */
    static String segment(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    /** Sends the edit and prints what it did, with where the change lives. */
    static int edit(Jtargetctl ctl, String method, String path, ObjectNode body, String done)
            throws IOException, Jtargetctl.Refused {
        JsonNode r = ctl.call(method, path, body == null ? null : JSON.writeValueAsString(body));
        ctl.print(r, out -> {
            out.println(done);
            out.println("note: " + r.path("note").asText());
        });
        return 0;
    }

    @Command(name = "lun", description = "Add or remove a LUN of a running target (not saved in the config file).",
            synopsisSubcommandLabel = "(add | remove)")
    static final class Lun {

        @ParentCommand
        Jtargetctl ctl;

        @Command(name = "add", description = "Map a backstore of the config as a new LUN of the target.")
        int add(@Parameters(paramLabel = "TARGET") String target, @Parameters(paramLabel = "LUN") int lun,
                @Parameters(paramLabel = "BACKSTORE") String backstore,
                @Option(names = "--read-only", description = "writes answer DATA PROTECT") boolean readOnly,
                @Option(names = "--removable", description = "the LU reports removable media") boolean removable)
                throws IOException, Jtargetctl.Refused {
            ObjectNode body = JSON.createObjectNode().put("lun", lun).put("backstore", backstore)
                    .put("readOnly", readOnly).put("removable", removable);
            return edit(ctl, "POST", "targets/" + segment(target) + "/luns", body,
                    "LUN " + lun + " (" + backstore + ") added to " + target);
        }

        @Command(name = "remove", description = "Remove a LUN from the target (refused while an ACL entry names it).")
        int remove(@Parameters(paramLabel = "TARGET") String target, @Parameters(paramLabel = "LUN") int lun)
                throws IOException, Jtargetctl.Refused {
            return edit(ctl, "DELETE", "targets/" + segment(target) + "/luns/" + lun, null,
                    "LUN " + lun + " removed from " + target);
        }
    }

    @Command(name = "acl", description = "Add or remove an initiator of a running target's ACL (not saved in the "
            + "config file).", synopsisSubcommandLabel = "(add | remove)")
    static final class Acl {

        @ParentCommand
        Jtargetctl ctl;

        @Command(name = "add", description = "Allow an initiator to log in (to every LUN unless --luns).")
        int add(@Parameters(paramLabel = "TARGET") String target, @Parameters(paramLabel = "INITIATOR") String initiator,
                @Option(names = "--luns", split = ",", paramLabel = "N", description = "the LUNs it sees") List<Integer> luns,
                @Option(names = "--read-only-luns", split = ",", paramLabel = "N",
                        description = "LUNs it may only read") List<Integer> readOnly)
                throws IOException, Jtargetctl.Refused {
            ObjectNode body = JSON.createObjectNode().put("initiator", initiator);
            if (luns != null) {
                luns.forEach(body.putArray("luns")::add);
            }
            if (readOnly != null) {
                readOnly.forEach(body.putArray("readOnlyLuns")::add);
            }
            return edit(ctl, "POST", "targets/" + segment(target) + "/acl", body, initiator + " added to the ACL of "
                    + target);
        }

        @Command(name = "remove", description = "Remove an initiator's ACL entry (its sessions end; not the last entry).")
        int remove(@Parameters(paramLabel = "TARGET") String target, @Parameters(paramLabel = "INITIATOR") String initiator)
                throws IOException, Jtargetctl.Refused {
            return edit(ctl, "DELETE", "targets/" + segment(target) + "/acl/" + segment(initiator), null,
                    initiator + " removed from the ACL of " + target);
        }
    }

    @Command(name = "alua", description = "Set a target port group's ALUA state on every target that has it (not saved "
            + "in the config file).", synopsisSubcommandLabel = "set")
    static final class Alua {

        @ParentCommand
        Jtargetctl ctl;

        @Command(name = "set", description = {"Move the target port group (the portals' portal-group-tag) to STATE:",
            "active-optimized, active-non-optimized, standby or unavailable. Initiators get the unit attention",
            "ASYMMETRIC ACCESS STATE CHANGED. Refused on an HA node (its states are its role)."})
        int set(@Parameters(paramLabel = "TPGT", description = "the portal-group-tag") int tpgt,
                @Parameters(paramLabel = "STATE") String state,
                @Option(names = "--preferred", negatable = true,
                        description = "report the group with PREF set (--no-preferred: cleared; default: kept)")
                Boolean preferred) throws IOException, Jtargetctl.Refused {
            ObjectNode body = JSON.createObjectNode().put("state", state);
            if (preferred != null) {
                body.put("preferred", preferred);
            }
            JsonNode r = ctl.call("PUT", "alua/" + tpgt, JSON.writeValueAsString(body));
            ctl.print(r, out -> {
                List<String> targets = new java.util.ArrayList<>();
                r.path("targets").forEach(t -> targets.add(t.path("iqn").asText()));
                JsonNode first = r.path("targets").path(0);
                out.println("target port group " + tpgt + " (portals " + String.join(", ", JSON.convertValue(
                        r.path("portals"), String[].class)) + "): " + first.path("state").asText(state)
                        + (first.path("preferred").asBoolean() ? ", preferred" : "") + " on "
                        + (targets.isEmpty() ? "no target" : String.join(", ", targets)));
                out.println("note: " + r.path("note").asText());
            });
            return 0;
        }
    }

    @Command(name = "backstore", description = "Grow a file or memory backstore of the running daemon (not saved "
            + "in the config file).", synopsisSubcommandLabel = "resize")
    static final class Backstore {

        @ParentCommand
        Jtargetctl ctl;

        @Command(name = "resize", description = {"Grow the backstore to SIZE: its LUs report the new capacity and "
                + "their initiators get CAPACITY DATA HAS CHANGED.", "Shrinking, block devices, partitions and "
                + "HA-replicated stores are refused."})
        int resize(@Parameters(paramLabel = "NAME") String name,
                   @Parameters(paramLabel = "SIZE", description = "bytes, or with a binary unit: 2GiB, 512M") String size)
                throws IOException, Jtargetctl.Refused {
            ObjectNode body = JSON.createObjectNode();
            if (size.chars().allMatch(Character::isDigit) && !size.isEmpty()) {
                body.put("size", Long.parseLong(size));
            } else {
                body.put("size", size);
            }
            return edit(ctl, "POST", "backstores/" + segment(name) + "/resize", body,
                    "backstore " + name + " grown to " + size);
        }
    }
}
