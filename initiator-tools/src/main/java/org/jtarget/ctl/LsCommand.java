package org.jtarget.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jtarget.units.ByteSize;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** {@code jtargetctl ls}: portals, backstores and targets with their LUNs and ACLs. */
@Command(name = "ls", description = "List portals, backstores, and targets with their LUNs and ACLs.")
final class LsCommand implements Callable<Integer> {

    @ParentCommand
    Jtargetctl ctl;

    @Override
    public Integer call() throws Exception {
        ObjectNode all = JsonNodeFactory.instance.objectNode();
        all.set("portals", ctl.call("GET", "portals"));
        all.set("backstores", ctl.call("GET", "backstores"));
        all.set("targets", ctl.call("GET", "targets"));
        for (JsonNode t : all.get("targets")) {
            String iqn = EditCommands.segment(t.path("iqn").asText());
            ((ObjectNode) t).set("luns", ctl.call("GET", "targets/" + iqn + "/luns"));
            ((ObjectNode) t).set("acl", ctl.call("GET", "targets/" + iqn + "/acl"));
        }
        ctl.print(all, out -> print(all, out));
        return 0;
    }

    private static void print(JsonNode all, PrintWriter out) {
        out.println("portals:");
        Table portals = new Table("  NAME", "TRANSPORT", "LISTEN", "TPGT");
        all.get("portals").forEach(p -> portals.row("  " + p.path("name").asText(), p.path("transport").asText(),
                p.path("listen").asText(), p.path("portalGroupTag").asInt()));
        portals.print(out);
        out.println("backstores:");
        Table stores = new Table("  NAME", "TYPE", "SIZE", "BLOCK", "PATH");
        all.get("backstores").forEach(b -> stores.row("  " + b.path("name").asText(),
                b.path("type").asText() + (b.path("thin").asBoolean() ? " (thin)" : ""),
                size(b), b.path("blockSize").asInt(),
                b.path("path").isNull() ? b.path("of").asText(null) : b.path("path").asText()));
        stores.print(out);
        out.println("targets:");
        for (JsonNode t : all.get("targets")) {
            out.println("  " + t.path("iqn").asText() + "  (" + t.path("sessions").asInt() + " session(s), portals "
                    + String.join(", ", t.path("portals").valueStream().map(JsonNode::asText).toList()) + ")");
            Table luns = new Table("    LUN", "BACKSTORE", "SIZE", "MEDIUM", "ACCESS");
            t.get("luns").forEach(l -> luns.row("    " + l.path("lun").asInt(), l.path("backstore").asText(),
                    l.path("sizeBytes").isNull() ? null : ByteSize.format(l.path("sizeBytes").asLong()),
                    l.path("medium").asText(), l.path("readOnly").asBoolean() ? "read-only" : "read-write"));
            luns.print(out);
            for (JsonNode a : t.get("acl")) {
                out.println("    acl " + a.path("initiator").asText()
                        + (a.path("luns").isNull() ? "" : " luns " + a.path("luns"))
                        + (a.path("readOnlyLuns").isEmpty() ? "" : " read-only " + a.path("readOnlyLuns")));
            }
        }
    }

    /** "64MiB", and for a thin store what it holds now: "64MiB (12MiB used)". */
    private static String size(JsonNode store) {
        String size = ByteSize.format(store.path("sizeBytes").asLong());
        JsonNode used = store.path("allocatedBytes");
        return used.isIntegralNumber() ? size + " (" + usage(used.asLong()) + " used)" : size;
    }

    /** Usage rounded to a readable unit (a chunk count need not be a power of two of KiB). */
    private static String usage(long bytes) {
        String exact = ByteSize.format(bytes);
        if (bytes == 0 || !exact.endsWith(" bytes")) {
            return bytes == 0 ? "0" : exact;
        }
        return String.format(java.util.Locale.ROOT, "%.1fKiB", bytes / 1024.0);
    }
}
