/* A latency histogram in the manner of HdrHistogram: exact below 256 ns, then 128 buckets
 * per power of two, so a reported percentile is at most 0.8 % above the true value; the
 * maximum is exact. Fixed size, no allocation while recording. */
#ifndef STOMPLOAD_HISTOGRAM_H
#define STOMPLOAD_HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_BUCKETS (256 + 40 * 128) /* values up to 2^48 ns, about three days */

typedef struct {
    uint64_t counts[HISTOGRAM_BUCKETS];
    uint64_t total;
    uint64_t max;
    double sum;
} histogram;

/* Counts one value (ns); larger ones than the last bucket land in it. */
void histogram_record(histogram *h, uint64_t value);

/* The value at quantile q (0...1): the upper edge of the bucket that holds it, capped at
 * the exact maximum; 0 when empty. */
uint64_t histogram_quantile(const histogram *h, double q);

/* Adds `other`'s counts to `h`. */
void histogram_merge(histogram *h, const histogram *other);

#endif
