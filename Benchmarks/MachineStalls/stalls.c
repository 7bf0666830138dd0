// How long a thread that wants a CPU waits for it on this machine: the floor under any tail
// latency a benchmark here reports (docs/benchmarks.md, "What the machine adds to the tail").
//
//     gcc -O2 -o stalls Benchmarks/MachineStalls/stalls.c
//     taskset -c 0 ./stalls spin 20     # a busy thread: gaps in its reading of the clock
//     taskset -c 1 ./stalls sleep 20    # an idle thread: how late a 1 ms sleep wakes
//
// spin reads the monotonic clock in a loop; a gap of 50 µs or more between two readings is
// time the thread did not run (the host ran something else on its virtual CPU, or the kernel
// an interrupt). sleep measures how much later than 1 ms each nanosleep returns, which is what
// a server's event loop waiting in epoll_wait pays before it sees a request.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

enum { BANDS = 10 };
static const uint64_t band_floor[BANDS] = {0, 50, 100, 250, 500, 1000, 2000, 3000, 5000, 10000};
static const char *band_name[BANDS] = {"<50us", "50-100us", "100-250us", "250-500us", "0.5-1ms",
                                       "1-2ms", "2-3ms", "3-5ms", "5-10ms", ">=10ms"};

struct tally {
    uint64_t count[BANDS], micros[BANDS], events, max;
};

static void add(struct tally *t, uint64_t micros) {
    int band = BANDS - 1;
    while (micros < band_floor[band]) band--;
    t->count[band]++;
    t->micros[band] += micros;
    t->events++;
    if (micros > t->max) t->max = micros;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "spin") && strcmp(argv[1], "sleep")) || atof(argv[2]) <= 0) {
        fprintf(stderr, "usage: stalls spin|sleep SECONDS\n");
        return 2;
    }
    int spin = strcmp(argv[1], "spin") == 0;
    double seconds = atof(argv[2]);
    uint64_t start = now_us(), end = start + (uint64_t)(seconds * 1e6);
    struct tally t = {0};
    if (spin) {
        for (uint64_t last = start, now; (now = now_us()) < end; last = now)
            if (now - last >= 50) add(&t, now - last);
    } else {
        const struct timespec ms = {0, 1000000};
        for (uint64_t before; (before = now_us()) < end;) {
            nanosleep(&ms, NULL);
            uint64_t slept = now_us() - before;
            add(&t, slept > 1000 ? slept - 1000 : 0);
        }
    }
    printf("%s %.0f s: %llu %s, longest %llu us\n", argv[1], seconds, (unsigned long long)t.events,
           spin ? "gaps of 50 us or more" : "sleeps of 1 ms, late by", (unsigned long long)t.max);
    uint64_t above = 0;
    for (int band = BANDS - 1; band >= 0; band--) {
        if (!t.count[band]) continue;
        above += t.count[band];
        printf("  %-10s %9llu  (%5.2f%% at or above)  %6.3f%% of the time\n", band_name[band],
               (unsigned long long)t.count[band], 100.0 * above / t.events, 100.0 * t.micros[band] / (seconds * 1e6));
    }
    return 0;
}
