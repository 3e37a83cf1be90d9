package org.jtarget.daemon.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import org.jtarget.daemon.RuntimeState;
import org.jtarget.fabric.iscsi.session.IscsiSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The routes of {@code /api/v1}: each request runs on the API's own thread (a reload may open
 * stores, a listing walks every target), never on a listener's event loop; a listener hands it
 * over with {@link #handle} and writes the answer when the future completes.
 */
public final class ManagementApi implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ManagementApi.class);

    /** Where the routes live; the OpenAPI document's paths are relative to it. */
    public static final String BASE = "/api/v1";

    /** How long a kicked session's initiator has to log out before its connections are closed. */
    static final Duration KICK_LOGOUT_GRACE = Duration.ofSeconds(2);

    /** One route: a method and a path template whose {@code {name}} segments match any one segment. */
    public record Route(String method, String template, Handler handler) {

        /** The template's parameters for {@code path}, or null when it does not match. */
        Map<String, String> match(String path) {
            String[] want = template.split("/");
            String[] got = path.split("/");
            if (want.length != got.length) {
                return null;
            }
            Map<String, String> params = new LinkedHashMap<>();
            for (int i = 0; i < want.length; i++) {
                if (want[i].startsWith("{") && want[i].endsWith("}") && !got[i].isEmpty()) {
                    params.put(want[i].substring(1, want[i].length() - 1), got[i]);
                } else if (!want[i].equals(got[i])) {
                    return null;
                }
            }
            return params;
        }
    }

    /** What a route does: a value written as JSON, an {@link ApiResponse} as it is, or a refusal. */
    @FunctionalInterface
    public interface Handler {
        CompletableFuture<?> handle(Map<String, String> params, ApiRequest request) throws ApiException;
    }

    private final ManagedDaemon daemon;
    private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            // durations as the config's ISO form (PT30S), paths as paths, not file: URIs
            .registerModule(new SimpleModule().addSerializer(Duration.class, ToStringSerializer.instance)
                    .addSerializer(java.nio.file.Path.class, ToStringSerializer.instance));
    private final ResourceViews views = new ResourceViews(json);
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name("jtargetd-api").daemon(true).unstarted(r));
    private final List<Route> routes;
    private final LiveEdits edits;

    public ManagementApi(ManagedDaemon daemon) {
        this.daemon = daemon;
        this.edits = new LiveEdits(json, daemon.runtime());
        this.routes = List.of(
                get("/daemon", (p, r) -> now(daemonView())),
                get("/portals", (p, r) -> now(views.portals(state()))),
                get("/backstores", (p, r) -> now(views.backstores(state()))),
                new Route("POST", BASE + "/backstores/{name}/resize", (p, r) -> resized(p.get("name"), r.body())),
                get("/targets", (p, r) -> now(views.targets(state()))),
                get("/targets/{iqn}/luns", (p, r) -> now(views.luns(state(), p.get("iqn")))),
                new Route("POST", BASE + "/targets/{iqn}/luns", (p, r) -> edited(p.get("iqn"),
                        () -> edits.addLun(p.get("iqn"), r.body()))),
                new Route("DELETE", BASE + "/targets/{iqn}/luns/{lun}", (p, r) -> edited(p.get("iqn"),
                        () -> edits.removeLun(p.get("iqn"), p.get("lun")))),
                get("/targets/{iqn}/acl", (p, r) -> now(views.acl(state(), p.get("iqn")))),
                new Route("POST", BASE + "/targets/{iqn}/acl", (p, r) -> edited(p.get("iqn"),
                        () -> edits.addAcl(p.get("iqn"), r.body()))),
                new Route("DELETE", BASE + "/targets/{iqn}/acl/{initiator}", (p, r) -> edited(p.get("iqn"),
                        () -> edits.removeAcl(p.get("iqn"), p.get("initiator")))),
                get("/sessions", (p, r) -> views.sessions(state())),
                new Route("DELETE", BASE + "/sessions/{id}", (p, r) -> kick(p.get("id"))),
                get("/alua", (p, r) -> now(views.alua(state()))),
                new Route("PUT", BASE + "/alua/{tpgt}", (p, r) -> aluaSet(p.get("tpgt"), r.body())),
                get("/ha", (p, r) -> now(views.ha(state()))),
                get("/tasks", (p, r) -> now(views.tasks(state()))),
                get("/config", (p, r) -> now(views.config(state().config()))),
                new Route("POST", BASE + "/reload", (p, r) -> now(reload())),
                new Route("POST", BASE + "/save", (p, r) -> now(edits.save(daemon.configFile()))),
                get("/openapi.yaml", (p, r) -> now(new ApiResponse(200, "application/yaml", openApiDocument()))));
    }

    private static Route get(String path, Handler handler) {
        return new Route("GET", BASE + path, handler);
    }

    private static CompletableFuture<Object> now(Object value) {
        return CompletableFuture.completedFuture(value);
    }

    /** Every route served (the OpenAPI test compares them with the document). */
    public List<Route> routes() {
        return routes;
    }

    /** Answers one request; the future completes on the API's thread or a session's loop, never fails. */
    public CompletableFuture<ApiResponse> handle(ApiRequest request) {
        try {
            return CompletableFuture.supplyAsync(() -> route(request), executor)
                    .thenCompose(f -> f)
                    .handle((value, failure) -> failure == null ? toResponse(value) : errorResponse(request, failure));
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            return CompletableFuture.completedFuture(error(new ApiException(503, "not-running",
                    "the management API is closing (the daemon is stopping)")));
        }
    }

    private CompletableFuture<?> route(ApiRequest request) {
        boolean pathKnown = false;
        for (Route route : routes) {
            Map<String, String> params = route.match(request.path());
            if (params != null && route.method().equals(request.method())) {
                try {
                    return route.handler().handle(params, request);
                } catch (ApiException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            pathKnown |= params != null;
        }
        return CompletableFuture.failedFuture(pathKnown
                ? new ApiException(405, "method-not-allowed", request.method() + " is not allowed on " + request.path())
                : ApiException.notFound("no such resource: " + request.path() + " (see " + BASE + "/openapi.yaml)"));
    }

    private ApiResponse toResponse(Object value) {
        if (value instanceof ApiResponse response) {
            return response;
        }
        try {
            return new ApiResponse(200, ApiResponse.JSON, json.writeValueAsBytes(value));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ApiResponse errorResponse(ApiRequest request, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        ApiException refusal = cause instanceof ApiException e ? e : null;
        if (refusal == null) {
            LOG.warn("management API: {} {} failed", request.method(), request.path(), cause);
            refusal = new ApiException(500, "internal-error", String.valueOf(cause));
        }
        return error(refusal);
    }

    /** The JSON body of a refusal: {@code { "code": ..., "message": ... }}. */
    ApiResponse error(ApiException e) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("code", e.code());
        body.put("message", e.getMessage());
        try {
            return new ApiResponse(e.status(), ApiResponse.JSON, json.writeValueAsBytes(body));
        } catch (IOException io) {
            throw new UncheckedIOException(io);
        }
    }

    private RuntimeState state() throws ApiException {
        RuntimeState s = daemon.runtime().state();
        if (s == null) {
            throw new ApiException(503, "not-running", "the daemon is not serving (starting or stopping)");
        }
        return s;
    }

    private Map<String, Object> daemonView() {
        RuntimeState s = daemon.runtime().state();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", version());
        m.put("pid", ProcessHandle.current().pid());
        m.put("state", s == null ? "stopping" : "running");
        m.put("startedAt", daemon.startedAt().toString());
        m.put("uptimeSeconds", Duration.between(daemon.startedAt(), Instant.now()).toSeconds());
        m.put("configFile", daemon.configFile().toString());
        m.put("summary", s == null ? null : daemon.runtime().summary());
        m.put("ha", s == null ? null : s.ha());
        return m;
    }

    /** The jar's version (its manifest), or "development" when run from classes. */
    static String version() {
        String v = ManagementApi.class.getPackage().getImplementationVersion();
        return v == null ? "development" : v;
    }

    /** One LUN or ACL edit of {@code iqn}: a target that does not exist is 404, else the edit's outcome. */
    private CompletableFuture<Object> edited(String iqn, EditAction action) throws ApiException {
        RuntimeState before = state();
        if (org.jtarget.config.TargetEdits.targetIndex(before.config(), iqn) < 0) {
            throw ApiException.notFound("no target " + iqn);
        }
        action.run();
        RuntimeState after = state();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("target", iqn);
        m.put("luns", views.luns(after, iqn));
        m.put("acl", views.acl(after, iqn));
        m.put("note", LiveEdits.NOTE);
        return now(m);
    }

    /** {@code POST /backstores/{name}/resize}: a store that does not exist is 404, else the store as it is now. */
    private CompletableFuture<Object> resized(String name, byte[] body) throws ApiException {
        if (org.jtarget.config.TargetEdits.backstoreIndex(state().config(), name) < 0) {
            throw ApiException.notFound("no backstore " + name);
        }
        edits.resizeBackstore(name, body);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("backstore", views.backstores(state()).stream().filter(b -> name.equals(b.get("name"))).findFirst()
                .orElseThrow());
        m.put("note", LiveEdits.RESIZE_NOTE);
        return now(m);
    }

    /**
     * {@code PUT /alua/{tpgt}}: a port group no portal has is 404, else the edit's outcome: the
     * group as each target that has it now reports it (as {@code GET /alua} does).
     */
    private CompletableFuture<Object> aluaSet(String tpgt, byte[] body) throws ApiException {
        int tag;
        try {
            tag = Integer.parseInt(tpgt);
        } catch (NumberFormatException e) {
            throw new ApiException(400, "bad-request", "tpgt: not a number: " + tpgt);
        }
        if (org.jtarget.config.TargetEdits.portalsOfGroup(state().config(), tag).isEmpty()) {
            throw ApiException.notFound("no portal has portal-group-tag " + tpgt);
        }
        edits.setAlua(tag, body);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", tag);
        m.put("portals", org.jtarget.config.TargetEdits.portalsOfGroup(state().config(), tag));
        m.put("targets", views.aluaGroup(state(), tag));
        m.put("note", LiveEdits.NOTE);
        return now(m);
    }

    @FunctionalInterface
    private interface EditAction {
        void run() throws ApiException;
    }

    /** {@code POST /reload}: the SIGHUP path; a refusal names the key and nothing has changed. */
    private Map<String, Object> reload() throws ApiException {
        String refused = daemon.reload().get();
        if (refused != null) {
            throw new ApiException(409, "reload-refused", refused);
        }
        RuntimeState s = state();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reloaded", true);
        m.put("configFile", daemon.configFile().toString());
        m.put("targets", s.config().targets().size());
        return m;
    }

    /**
     * {@code DELETE /sessions/{id}}: asks the initiator to log out (RFC 7143 11.9.1 AsyncEvent 1);
     * what is left after {@link #KICK_LOGOUT_GRACE} is closed. Answers once the session has ended.
     */
    private CompletableFuture<Map<String, Object>> kick(String id) throws ApiException {
        IscsiSession session = session(id);
        LOG.info("management API: ending session tsih={} of {}", session.tsih(), session.parameters().initiatorName());
        session.requestLogout((int) KICK_LOGOUT_GRACE.toSeconds());
        CompletableFuture<Map<String, Object>> ended = new CompletableFuture<>();
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        session.terminationFuture().addListener(f -> ended.complete(kicked(session, closed.get() ? "closed" : "logged-out")));
        executor.schedule(() -> {
            if (!ended.isDone()) {
                closed.set(true);
                session.terminate();
            }
        }, KICK_LOGOUT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        return ended;
    }

    private static Map<String, Object> kicked(IscsiSession session, String how) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", session.tsih());
        m.put("initiator", session.parameters().initiatorName());
        m.put("ended", how);
        return m;
    }

    private IscsiSession session(String id) throws ApiException {
        int tsih;
        try {
            tsih = Integer.parseInt(id);
        } catch (NumberFormatException e) {
            throw new ApiException(400, "bad-session-id", "session id: not a number: " + id);
        }
        RuntimeState s = state();
        if (s.sessions() != null) {
            for (IscsiSession session : s.sessions().sessions()) {
                if (session.tsih() == tsih) {
                    return session;
                }
            }
        }
        throw ApiException.notFound("no session " + id);
    }

    /** The checked-in OpenAPI 3 document, served as it is. */
    static byte[] openApiDocument() {
        try (InputStream in = ManagementApi.class.getResourceAsStream("openapi.yaml")) {
            if (in == null) {
                throw new IllegalStateException("openapi.yaml missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    /** The routes as "METHOD template" lines (logs and the OpenAPI test). */
    public List<String> describeRoutes() {
        List<String> all = new ArrayList<>();
        routes.forEach(r -> all.add(r.method() + " " + r.template()));
        return all;
    }
}
