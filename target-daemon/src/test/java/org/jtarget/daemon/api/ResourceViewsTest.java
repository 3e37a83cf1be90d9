package org.jtarget.daemon.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.jtarget.daemon.RuntimeState;
import org.jtarget.ha.PairNode;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.scsi.lun.TargetRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Views the API tests through a daemon cannot reach: an HA node's resync as a task (no pair in ManagementApiTest). */
class ResourceViewsTest {

    private final ResourceViews views = new ResourceViews(new ObjectMapper());
    private final TargetRegistry noTargets = new TargetRegistry(new LunIoExecutors(n -> Runnable::run), null);

    @Test
    void aRunningResyncIsATaskOfItsBackstore() {
        long twoSecondsAgo = System.nanoTime() - 2_000_000_000L;
        RuntimeState s = new RuntimeState(null, noTargets, Map.of(), null, "HA node a: primary",
                new PairNode.ResyncProgress("ram0", 1L << 20, 4L << 20, twoSecondsAgo));
        List<Map<String, Object>> tasks = views.tasks(s);
        assertThat(tasks).singleElement().satisfies(t -> {
            assertThat(t.get("kind")).isEqualTo("ha-resync");
            assertThat(t.get("backstore")).isEqualTo("ram0");
            assertThat(t.get("target")).isNull();
            assertThat(t.get("lun")).isNull();
            assertThat(t.get("doneBytes")).isEqualTo(1L << 20);
            assertThat(t.get("totalBytes")).isEqualTo(4L << 20);
            assertThat(t.get("percent")).isEqualTo(25.0);
            assertThat((long) t.get("bytesPerSecond")).as("1 MiB in 2 s and a little").isBetween(400_000L, 524_288L);
            assertThat((long) t.get("secondsLeft")).isBetween(6L, 8L);
        });
    }

    @Test
    void withoutAResyncOrLongWorkThereIsNoTask() {
        assertThat(views.tasks(new RuntimeState(null, noTargets, Map.of(), null, null, null))).isEmpty();
    }
}
