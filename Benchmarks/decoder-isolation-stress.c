/*
 * Benchmarks/decoder-isolation-stress.c: decodes one camera RAW file ITERATIONS times through
 * pc_raw_decode's isolated path (the decoder process) while HAMMERS threads call setenv("TZ"),
 * tzset, localtime_r, mktime, getenv and malloc/free in a loop, as the importing process's other
 * workers (Swift, Dispatch, Foundation dates) may at any time. Prints how many decodes succeeded,
 * failed and timed out, and the first failure's message.
 *
 * Why: a child made with fork(2) from a multi-threaded process may call only async-signal-safe
 * functions until it execs (POSIX fork(2)); glibc resets neither the environment lock nor tzset's
 * lock in such a child, so a child that runs setenv/tzset/mktime (LibRaw does) while another
 * thread held one of them at the fork waits forever: "LibRaw did not finish this file in 60 s".
 * Built by Benchmarks/decoder-isolation-stress.sh with a decoder time limit of
 * PC_RAW_CHILD_SECONDS=5 (a DNG of the corpus decodes in milliseconds), so a hang costs 5 s.
 *
 * Usage: decoder-isolation-stress FILE [ITERATIONS [HAMMERS]]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "CImageCodec.h"

static atomic_int stop;

static void *hammer(void *arg) {
    unsigned long n = (unsigned long)(uintptr_t)arg;
    while (!atomic_load(&stop)) {
        setenv("TZ", (n++ & 1) ? "UTC" : "Europe/Paris", 1);
        tzset();
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        (void)mktime(&tm);
        (void)getenv("HOME");
        void *p = malloc(64 + (n & 4095));
        free(p);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FILE [ITERATIONS [HAMMERS]]\n", argv[0]); return 64; }
    int iterations = argc > 2 ? atoi(argv[2]) : 200;
    int hammers = argc > 3 ? atoi(argv[3]) : 3;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) { perror(argv[1]); return 66; }
    static uint8_t data[64 << 20];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    pthread_t threads[64];
    if (hammers > 64) hammers = 64;
    for (int i = 0; i < hammers; i++) pthread_create(&threads[i], NULL, hammer, (void *)(uintptr_t)i);
    int ok = 0, failed = 0, timed_out = 0;
    char first[PC_MESSAGE_CAPACITY] = "";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < iterations; i++) {
        pc_decode_options options;
        memset(&options, 0, sizeof options);
        options.target_edge = 120;
        options.max_pixels = 100000000;
        pc_raw_info info;
        pc_decoded out;
        pc_messages m;
        memset(&m, 0, sizeof m);
        uint8_t *jpeg = NULL;
        size_t jpeg_size = 0;
        pc_status status = pc_raw_decode(data, size, &options, &info, &out, &jpeg, &jpeg_size, &m);
        if (status == PC_OK) ok++;
        else {
            failed++;
            if (strstr(m.error, "did not finish") != NULL) timed_out++;
            if (first[0] == '\0') snprintf(first, sizeof first, "iteration %d: %s", i, m.error);
        }
        free(jpeg);
        free(out.pixels);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    atomic_store(&stop, 1);
    for (int i = 0; i < hammers; i++) pthread_join(threads[i], NULL);
    printf("%d decodes, %d hammer threads: %d ok, %d failed, %d timed out, %.1f s%s%s\n", iterations, hammers, ok, failed,
           timed_out, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, first[0] ? "; first: " : "", first);
    return failed == 0 ? 0 : 1;
}
