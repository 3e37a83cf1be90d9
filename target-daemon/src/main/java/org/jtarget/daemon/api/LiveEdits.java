package org.jtarget.daemon.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jtarget.config.AclConfig;
import org.jtarget.config.AluaSetting;
import org.jtarget.config.ConfigException;
import org.jtarget.config.LunConfig;
import org.jtarget.daemon.DaemonRuntime;
import org.jtarget.units.ByteSize;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The API's LUN, ACL and ALUA changes: the request body read into a config entry, the running config
 * edited ({@link org.jtarget.config.TargetEdits}) and applied by the runtime's reload, as a SIGHUP
 * would apply the same change in the file. The file is written only by {@link #save}; until then a
 * reload from it undoes the edits.
 */
final class LiveEdits {

    /** Told with every edit: where the change lives. */
    static final String NOTE = "applied to the running daemon only: the config file is unchanged until POST "
            + "/api/v1/save (jtargetctl save), and a reload from it undoes this";

    /** Told with a resize: the file's smaller size would shrink the store, which a reload refuses. */
    static final String RESIZE_NOTE = "applied to the running daemon only: the config file is unchanged until POST "
            + "/api/v1/save (jtargetctl save), and until then a reload from it is refused (its size would shrink the store)";

    private static final Set<String> LUN_FIELDS = Set.of("lun", "backstore", "readOnly", "removable");
    private static final Set<String> ACL_FIELDS = Set.of("initiator", "luns", "readOnlyLuns");
    private static final Set<String> RESIZE_FIELDS = Set.of("size");
    private static final Set<String> ALUA_FIELDS = Set.of("state", "preferred");

    private final ObjectMapper json;
    private final DaemonRuntime runtime;
    /** The edits since the last save, in order (only the API's thread touches it). */
    private final List<PendingEdit> pending = new ArrayList<>();

    LiveEdits(ObjectMapper json, DaemonRuntime runtime) {
        this.json = json;
        this.runtime = runtime;
    }

    void addLun(String iqn, byte[] body) throws ApiException {
        JsonNode b = object(body, LUN_FIELDS);
        apply(PendingEdit.addLun(iqn, new LunConfig(integer(b, "lun"), text(b, "backstore"),
                b.path("readOnly").asBoolean(false), b.path("removable").asBoolean(false))));
    }

    void removeLun(String iqn, String lun) throws ApiException {
        try {
            apply(PendingEdit.removeLun(iqn, Integer.parseInt(lun)));
        } catch (NumberFormatException e) {
            throw new ApiException(400, "bad-request", "lun: not a number: " + lun);
        }
    }

    void addAcl(String iqn, byte[] body) throws ApiException {
        JsonNode b = object(body, ACL_FIELDS);
        apply(PendingEdit.addAcl(iqn, new AclConfig(text(b, "initiator"), b.has("luns") ? integers(b, "luns") : null,
                b.has("readOnlyLuns") ? integers(b, "readOnlyLuns") : List.of())));
    }

    void removeAcl(String iqn, String initiator) throws ApiException {
        apply(PendingEdit.removeAcl(iqn, initiator));
    }

    /** {@code POST /backstores/{name}/resize}: {@code {"size": "2GiB"}} or a number of bytes. */
    void resizeBackstore(String name, byte[] body) throws ApiException {
        JsonNode size = object(body, RESIZE_FIELDS).path("size");
        long bytes;
        try {
            bytes = size.isIntegralNumber() && size.canConvertToLong() ? size.asLong()
                    : size.isTextual() ? ByteSize.parse(size.asText()) : -1;
        } catch (IllegalArgumentException e) {
            throw new ApiException(400, "bad-request", "size: " + e.getMessage());
        }
        if (bytes <= 0) {
            throw new ApiException(400, "bad-request", "size: missing (bytes, or text such as \"2GiB\", is required)");
        }
        apply(PendingEdit.resizeBackstore(name, bytes));
    }

    /**
     * {@code PUT /alua/{tpgt}}: target port group {@code tpgt} in {@code state} (a config
     * {@code alua-state} name), PREF = {@code preferred} when given, on every target that has it.
     */
    void setAlua(int tpgt, byte[] body) throws ApiException {
        JsonNode b = object(body, ALUA_FIELDS);
        AluaSetting state = AluaSetting.ofConfigName(text(b, "state"));
        if (state == null) {
            throw new ApiException(400, "bad-request", "state: expected one of " + Arrays.stream(AluaSetting.values())
                    .map(AluaSetting::configName).toList() + ", got '" + b.get("state").asText() + "'");
        }
        if (b.has("preferred") && !b.get("preferred").isBoolean()) {
            throw new ApiException(400, "bad-request", "preferred: expected true or false, got " + b.get("preferred"));
        }
        apply(PendingEdit.setAlua(tpgt, state, b.has("preferred") ? b.get("preferred").asBoolean() : null));
    }

    /** {@code POST /save}: the edits made so far written into the config file (see {@link ConfigSaver}). */
    Map<String, Object> save(Path file) throws ApiException {
        var state = runtime.state();
        if (state == null) {
            throw new ApiException(503, "not-running", "the daemon is not serving (starting or stopping)");
        }
        Map<String, Object> answer = ConfigSaver.save(file, state.config(), pending);
        pending.clear(); // in the file now, or the file already said it (a reload from it since)
        return answer;
    }

    /** Applies the edit; a refusal (409) names the key as it would be in the file, and nothing changed. */
    private void apply(PendingEdit edit) throws ApiException {
        try {
            runtime.edit(edit::applyTo);
            pending.add(edit);
        } catch (ConfigException e) {
            throw new ApiException(409, "edit-refused", e.getMessage());
        } catch (Exception e) {
            throw new ApiException(500, "internal-error", "edit failed: " + e);
        }
    }

    private JsonNode object(byte[] body, Set<String> fields) throws ApiException {
        JsonNode b;
        try {
            b = json.readTree(body);
        } catch (IOException e) {
            throw new ApiException(400, "bad-request", "body: not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (b == null || !b.isObject()) {
            throw new ApiException(400, "bad-request", "body: expected a JSON object with " + fields);
        }
        for (String name : (Iterable<String>) b::fieldNames) {
            if (!fields.contains(name)) {
                throw new ApiException(400, "bad-request", name + ": unknown field (expected one of: " + fields + ")");
            }
        }
        return b;
    }

    private static String text(JsonNode b, String field) throws ApiException {
        if (!b.path(field).isTextual() || b.get(field).asText().isBlank()) {
            throw new ApiException(400, "bad-request", field + ": missing (a string is required)");
        }
        return b.get(field).asText();
    }

    private static int integer(JsonNode b, String field) throws ApiException {
        if (!b.path(field).canConvertToInt() || !b.get(field).isIntegralNumber()) {
            throw new ApiException(400, "bad-request", field + ": missing (an integer is required)");
        }
        return b.get(field).asInt();
    }

    private static List<Integer> integers(JsonNode b, String field) throws ApiException {
        List<Integer> all = new ArrayList<>();
        if (!b.get(field).isArray()) {
            throw new ApiException(400, "bad-request", field + ": expected a list of LUN numbers");
        }
        for (JsonNode n : b.get(field)) {
            if (!n.isIntegralNumber() || !n.canConvertToInt()) {
                throw new ApiException(400, "bad-request", field + ": expected a list of LUN numbers, got " + n);
            }
            all.add(n.asInt());
        }
        return all;
    }
}
