/* Readings from /proc: the broker's CPU time and memory, our own CPU time, the load. */
#include "stompload.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int probe_process(int pid, process_sample *sample) {
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    size_t size = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[size] = '\0';
    /* Fields after the command name, which is in parentheses and may hold spaces. */
    char *rest = strrchr(text, ')');
    if (!rest) return -1;
    unsigned long utime = 0, stime = 0;
    /* state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (sscanf(rest + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return -1;
    sample->cpu_seconds = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    file = fopen(path, "r");
    if (!file) return -1;
    sample->rss_kib = sample->rss_anon_kib = 0;
    char line[256];
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "VmRSS:", 6) == 0) sample->rss_kib = strtol(line + 6, NULL, 10);
        if (strncmp(line, "RssAnon:", 8) == 0) sample->rss_anon_kib = strtol(line + 8, NULL, 10);
    }
    fclose(file);
    return 0;
}

double probe_own_cpu(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

void probe_loadavg(double load[3]) {
    load[0] = load[1] = load[2] = 0;
    FILE *file = fopen("/proc/loadavg", "r");
    if (!file) return;
    if (fscanf(file, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = 0;
    fclose(file);
}
