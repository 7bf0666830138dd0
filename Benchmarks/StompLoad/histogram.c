/* See histogram.h. */
#include "histogram.h"

static int bucket_of(uint64_t value) {
    if (value < 256) return (int)value;
    int exponent = 63 - __builtin_clzll(value); /* >= 8 */
    int index = 256 + (exponent - 8) * 128 + (int)((value >> (exponent - 7)) & 127);
    return index < HISTOGRAM_BUCKETS ? index : HISTOGRAM_BUCKETS - 1;
}

/* The largest value that lands in bucket `index`. */
static uint64_t upper_edge(int index) {
    if (index < 256) return (uint64_t)index;
    int exponent = (index - 256) / 128 + 8;
    uint64_t sub = (uint64_t)((index - 256) % 128) + 128;
    return ((sub + 1) << (exponent - 7)) - 1;
}

void histogram_record(histogram *h, uint64_t value) {
    h->counts[bucket_of(value)]++;
    h->total++;
    h->sum += (double)value;
    if (value > h->max) h->max = value;
}

uint64_t histogram_quantile(const histogram *h, double q) {
    if (h->total == 0) return 0;
    uint64_t rank = (uint64_t)(q * (double)h->total);
    if (rank >= h->total) rank = h->total - 1;
    uint64_t seen = 0;
    for (int i = 0; i < HISTOGRAM_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen > rank) {
            uint64_t edge = upper_edge(i);
            return edge < h->max ? edge : h->max;
        }
    }
    return h->max;
}

void histogram_merge(histogram *h, const histogram *other) {
    for (int i = 0; i < HISTOGRAM_BUCKETS; i++) h->counts[i] += other->counts[i];
    h->total += other->total;
    h->sum += other->sum;
    if (other->max > h->max) h->max = other->max;
}
