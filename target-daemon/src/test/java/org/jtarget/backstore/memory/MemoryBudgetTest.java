package org.jtarget.backstore.memory;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryBudgetTest {

    @Test
    void reservesUpToTheLimitExactly() {
        MemoryBudget b = new MemoryBudget(100);
        assertThat(b.tryReserve(60)).isTrue();
        assertThat(b.tryReserve(41)).isFalse();
        assertThat(b.used()).isEqualTo(60);
        assertThat(b.tryReserve(40)).isTrue();
        assertThat(b.used()).isEqualTo(100);
        b.release(30);
        assertThat(b.tryReserve(30)).isTrue();
    }

    @Test
    void unlimitedNeverRefusesAndDoesNotOverflow() {
        MemoryBudget b = MemoryBudget.unlimited();
        assertThat(b.tryReserve(Long.MAX_VALUE / 2)).isTrue();
        assertThat(b.tryReserve(Long.MAX_VALUE / 2)).isTrue();
        assertThat(b.tryReserve(Long.MAX_VALUE / 2)).isFalse();
    }

    @Test
    void nonPositiveLimitIsABug() {
        assertThatThrownBy(() -> new MemoryBudget(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrentReservationsNeverExceedTheLimit() throws Exception {
        MemoryBudget b = new MemoryBudget(1000);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Integer>> tasks = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                tasks.add(() -> {
                    int granted = 0;
                    for (int i = 0; i < 10_000; i++) {
                        if (b.tryReserve(7)) {
                            granted++;
                            assertThat(b.used()).isLessThanOrEqualTo(1000);
                            if (i % 2 == 0) {
                                b.release(7);
                                granted--;
                            }
                        }
                    }
                    return granted;
                });
            }
            int held = 0;
            for (Future<Integer> f : pool.invokeAll(tasks)) {
                held += f.get();
            }
            assertThat(b.used()).isEqualTo(held * 7L).isLessThanOrEqualTo(1000);
        } finally {
            pool.shutdown();
        }
    }
}
