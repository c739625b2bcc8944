#ifndef PC_BITREADER_H
#define PC_BITREADER_H
/*
 * The one MSB-first bit reader of the HEVC and AV1 headers (hevcvui.c's SPS and VUI, heifcheck.c's
 * AV1 sequence header): u(n)/f(n) (ITU-T H.265 §7.2, AV1 §4.10.2) and ue(v)/uvlc() (H.265 §9.2,
 * AV1 §4.10.3, the same Exp-Golomb code). Every read is checked against the n bytes given: a read
 * past them returns 0 and sets `bad`, which stays set.
 */
#include <stddef.h>
#include <stdint.h>

typedef struct pc_bits {
    const uint8_t *p;
    size_t n;    /* bytes */
    size_t pos;  /* bits read */
    int bad;     /* read past the end (or an Exp-Golomb code of 32 or more leading zeros) */
} pc_bits;

/* u(n) / f(n): the next `count` (0...32) bits, MSB first. */
static inline uint32_t pc_u(pc_bits *b, int count) {
    uint32_t v = 0;
    for (int i = 0; i < count; i++) {
        if (b->pos >= b->n * 8) { b->bad = 1; return 0; }
        v = (v << 1) | ((b->p[b->pos >> 3] >> (7 - (b->pos & 7))) & 1);
        b->pos++;
    }
    return v;
}

/* ue(v) / uvlc(): at most 31 leading zeros (32 or more sets `bad`: larger values are invalid here). */
static inline uint32_t pc_ue(pc_bits *b) {
    int zeros = 0;
    while (!b->bad && pc_u(b, 1) == 0) {
        if (++zeros > 31) { b->bad = 1; return 0; }
    }
    if (b->bad) return 0;
    return zeros == 0 ? 0 : (uint32_t)((1ull << zeros) - 1 + pc_u(b, zeros));
}

#endif
