/*
 * The structure check of a HEIF/AVIF file before libheif decodes it: see heifcheck.h.
 *
 * Sources: ISO/IEC 14496-12 (ISOBMFF) §4.2 boxes, §8.11.1 meta, §8.11.3 iloc, §8.11.4 pitm,
 * §8.11.6 iinf/infe, §8.11.12 iref, §8.11.14 iprp/ipco/ipma; ISO/IEC 23008-12 (HEIF) §6.5.3
 * ispe, §6.5.8 auxC, §6.6.2.3 grid (ImageGrid), §6.6.2.4 iovl (ImageOverlay), §6.6.2.1 iden;
 * ISO/IEC 14496-15 §8.3.3.1 hvcC; ITU-T H.265 §7.3.2.2.1 SPS (hevcvui.c); AV1 Bitstream
 * specification §5.3 OBU header, §5.5 sequence header OBU; AV1 Codec ISO Media File Format
 * Binding §2.3 av1C.
 *
 * Reading rule: every length is checked against what is left of its parent before it is used;
 * counts a box declares are only upper limits of loops that stop at the end of the box.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "heifcheck.h"
#include "bitreader.h"
#include "hevcvui.h"
#include "messages.h"

#define PC_HC_MAX_EXTENTS_PER_ITEM 1024
#define PC_HC_MAX_EXTENTS 65536
/* The most rows or columns a coded size may exceed its ispe by (the coding block padding). */
#define PC_HC_CODED_PADDING 64

typedef struct pc_hc_item {
    uint32_t id;
    char type[4];
    int has_ispe;
    uint32_t width, height; /* ispe */
    const uint8_t *hvcc; size_t hvcc_n;
    const uint8_t *av1c; size_t av1c_n;
    int alpha;              /* auxC names an alpha plane */
    int has_loc, method;
    uint32_t first_extent, extent_count;
    uint64_t data_length;
    int state;              /* cycle search: 0 new, 1 on the path, 2 done */
    int depth;              /* longest derivation chain below it */
} pc_hc_item;

typedef struct pc_hc_extent { uint64_t offset, length; } pc_hc_extent;
typedef struct pc_hc_ref { char type[4]; uint32_t from, to; } pc_hc_ref;

typedef struct pc_hc {
    const uint8_t *data; size_t size;
    const uint8_t *idat; size_t idat_n;
    pc_hc_item *items; size_t item_count;
    pc_hc_extent *extents; size_t extent_count;
    pc_hc_ref *refs; size_t ref_count;
    uint64_t max_pixels;
    pc_messages *m;
} pc_hc;

/* Sets the reason (printf `format`; "HEIF file is corrupt: " before it for PC_CORRUPT), returns `status`. */
__attribute__((format(printf, 3, 4)))
static pc_status pc_hc_fail(pc_hc *c, pc_status status, const char *format, ...) {
    char text[PC_MESSAGE_CAPACITY];
    char detail[PC_MESSAGE_CAPACITY - 32];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    snprintf(text, sizeof text, "HEIF file is corrupt: %s", detail);
    pc_set_error(c->m, status == PC_CORRUPT ? text : detail);
    return status;
}

static uint32_t pc_hc_u16(const uint8_t *p) { return ((uint32_t)p[0] << 8) | p[1]; }
static uint32_t pc_hc_u32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
/* An unsigned big-endian field of `bytes` (0, 4 or 8) bytes. */
static uint64_t pc_hc_un(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | p[i];
    return v;
}

/*
 * The next box among the siblings in p[0..n) at *at: its type and payload, *at moved past it.
 * 1 for a box, 0 at the end, -1 for a box whose length runs past its parent (or below its header).
 */
static int pc_hc_box(const uint8_t *p, size_t n, size_t *at, char type[4], const uint8_t **body, size_t *body_n) {
    if (*at >= n) return 0;
    if (n - *at < 8) return -1;
    const uint8_t *b = p + *at;
    uint64_t len = pc_hc_u32(b);
    size_t header = 8;
    if (len == 1) {
        if (n - *at < 16) return -1;
        len = pc_hc_un(b + 8, 8);
        header = 16;
    } else if (len == 0) {
        len = n - *at; /* to the end of the parent */
    }
    if (memcmp(b + 4, "uuid", 4) == 0) header += 16;
    if (len < header || len > n - *at) return -1;
    memcpy(type, b + 4, 4);
    *body = b + header;
    *body_n = (size_t)len - header;
    *at += (size_t)len;
    return 1;
}

static int pc_hc_cmp_item(const void *a, const void *b) {
    uint32_t x = ((const pc_hc_item *)a)->id, y = ((const pc_hc_item *)b)->id;
    return x < y ? -1 : x > y;
}

static pc_hc_item *pc_hc_find(pc_hc *c, uint32_t id) {
    size_t lo = 0, hi = c->item_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->items[mid].id == id) return &c->items[mid];
        if (c->items[mid].id < id) lo = mid + 1; else hi = mid;
    }
    return NULL;
}

static int pc_hc_is(const pc_hc_item *item, const char *type) { return memcmp(item->type, type, 4) == 0; }
static int pc_hc_coded(const pc_hc_item *item) { return pc_hc_is(item, "hvc1") || pc_hc_is(item, "av01"); }
static int pc_hc_derived(const pc_hc_item *item) {
    return pc_hc_is(item, "grid") || pc_hc_is(item, "iovl") || pc_hc_is(item, "iden");
}

/* iinf (§8.11.6): one item per infe box present. */
static pc_status pc_hc_iinf(pc_hc *c, const uint8_t *p, size_t n) {
    if (n < 6) return pc_hc_fail(c, PC_CORRUPT, "iinf box too short");
    size_t at = p[0] == 0 ? 6 : 8;
    if (at > n) return pc_hc_fail(c, PC_CORRUPT, "iinf box too short");
    c->items = calloc((n - at) / 12 + 1, sizeof *c->items); /* an infe box takes at least 12 bytes */
    if (c->items == NULL) return PC_NO_MEMORY;
    char type[4];
    const uint8_t *body;
    size_t body_n;
    int r;
    while ((r = pc_hc_box(p, n, &at, type, &body, &body_n)) == 1) {
        if (memcmp(type, "infe", 4) != 0) continue;
        if (body_n < 4) return pc_hc_fail(c, PC_CORRUPT, "infe box too short");
        int version = body[0];
        pc_hc_item *item = &c->items[c->item_count];
        memset(item, 0, sizeof *item);
        if (version < 2) {
            if (body_n < 8) return pc_hc_fail(c, PC_CORRUPT, "infe box too short");
            item->id = pc_hc_u16(body + 4);
            memcpy(item->type, "\0\0\0\0", 4); /* versions 0 and 1 carry no item_type */
        } else {
            size_t id_bytes = version == 2 ? 2 : 4;
            if (body_n < 4 + id_bytes + 2 + 4) return pc_hc_fail(c, PC_CORRUPT, "infe box too short");
            item->id = version == 2 ? pc_hc_u16(body + 4) : pc_hc_u32(body + 4);
            memcpy(item->type, body + 4 + id_bytes + 2, 4);
        }
        c->item_count++;
    }
    if (r < 0) return pc_hc_fail(c, PC_CORRUPT, "a box in iinf runs past its end");
    if (c->item_count > 1) qsort(c->items, c->item_count, sizeof *c->items, pc_hc_cmp_item);
    for (size_t i = 1; i < c->item_count; i++)
        if (c->items[i].id == c->items[i - 1].id)
            return pc_hc_fail(c, PC_CORRUPT, "item %u is declared twice (iinf)", c->items[i].id);
    return PC_OK;
}

/* iloc (§8.11.3): each item's extents, checked to lie in the file (method 0) or idat (method 1). */
static pc_status pc_hc_iloc(pc_hc *c, const uint8_t *p, size_t n) {
    if (n < 6) return pc_hc_fail(c, PC_CORRUPT, "iloc box too short");
    int version = p[0];
    int offset_size = p[4] >> 4, length_size = p[4] & 15, base_size = p[5] >> 4;
    int index_size = version == 1 || version == 2 ? p[5] & 15 : 0;
    if (version > 2) return pc_hc_fail(c, PC_UNSUPPORTED, "iloc version %u is not supported", (uint32_t)version);
    int sizes[4] = { offset_size, length_size, base_size, index_size };
    for (int i = 0; i < 4; i++)
        if (sizes[i] != 0 && sizes[i] != 4 && sizes[i] != 8)
            return pc_hc_fail(c, PC_CORRUPT, "iloc field size %u is not 0, 4 or 8", (uint32_t)sizes[i]);
    size_t at = 6;
    uint32_t count;
    if (version < 2) {
        if (n - at < 2) return pc_hc_fail(c, PC_CORRUPT, "iloc box too short");
        count = pc_hc_u16(p + at); at += 2;
    } else {
        if (n - at < 4) return pc_hc_fail(c, PC_CORRUPT, "iloc box too short");
        count = pc_hc_u32(p + at); at += 4;
    }
    for (uint32_t k = 0; k < count; k++) {
        size_t fixed = (version < 2 ? 2 : 4) + (version >= 1 ? 2 : 0) + 2 + (size_t)base_size + 2;
        if (n - at < fixed) return pc_hc_fail(c, PC_CORRUPT, "iloc box too short for its %u items", count);
        uint32_t id = version < 2 ? pc_hc_u16(p + at) : pc_hc_u32(p + at);
        at += version < 2 ? 2 : 4;
        int method = 0;
        if (version >= 1) { method = p[at + 1] & 15; at += 2; }
        uint32_t reference = pc_hc_u16(p + at); at += 2;
        uint64_t base = pc_hc_un(p + at, base_size); at += (size_t)base_size;
        uint32_t extents = pc_hc_u16(p + at); at += 2;
        size_t per = (size_t)index_size + (size_t)offset_size + (size_t)length_size;
        if ((uint64_t)extents * per > n - at)
            return pc_hc_fail(c, PC_CORRUPT, "iloc entry of item %u runs past the box", id);
        pc_hc_item *item = pc_hc_find(c, id);
        if (item == NULL) { at += extents * per; continue; } /* data of no item: not read by anyone */
        if (item->has_loc) return pc_hc_fail(c, PC_CORRUPT, "item %u has two iloc entries", id);
        if (reference != 0 || method > 1)
            return pc_hc_fail(c, PC_UNSUPPORTED, "item %u: data in another file or by construction method %u is not supported", id, (uint32_t)method);
        if (extents > PC_HC_MAX_EXTENTS_PER_ITEM || c->extent_count + extents > PC_HC_MAX_EXTENTS)
            return pc_hc_fail(c, PC_CORRUPT, "item %u has %u data extents", id, extents);
        pc_hc_extent *grown = realloc(c->extents, (c->extent_count + extents + 1) * sizeof *grown);
        if (grown == NULL) return PC_NO_MEMORY;
        c->extents = grown;
        item->has_loc = 1;
        item->method = method;
        item->first_extent = (uint32_t)c->extent_count;
        uint64_t limit = method == 0 ? c->size : c->idat_n;
        for (uint32_t e = 0; e < extents; e++) {
            at += (size_t)index_size;
            uint64_t offset = pc_hc_un(p + at, offset_size); at += (size_t)offset_size;
            uint64_t length = pc_hc_un(p + at, length_size); at += (size_t)length_size;
            if (base > limit || offset > limit - base)
                return pc_hc_fail(c, PC_CORRUPT, "data of item %u starts past the end of the %s", id, method == 0 ? "file" : "idat box");
            offset += base;
            if (length == 0) length = limit - offset; /* "the entire length of the referenced data" */
            if (length > limit - offset)
                return pc_hc_fail(c, PC_CORRUPT, "data of item %u runs past the end of the %s", id, method == 0 ? "file" : "idat box");
            item->data_length += length;
            if (item->data_length > limit)
                return pc_hc_fail(c, PC_CORRUPT, "item %u has more data than the %s", id, method == 0 ? "file" : "idat box");
            c->extents[c->extent_count].offset = offset;
            c->extents[c->extent_count].length = length;
            c->extent_count++;
            item->extent_count++;
        }
    }
    return PC_OK;
}

/* The first `want` bytes of an item's data into buf (its extents in order); how many there were. */
static size_t pc_hc_read(pc_hc *c, const pc_hc_item *item, uint8_t *buf, size_t want) {
    const uint8_t *base = item->method == 0 ? c->data : c->idat;
    size_t got = 0;
    for (uint32_t e = 0; e < item->extent_count && got < want; e++) {
        const pc_hc_extent *x = &c->extents[item->first_extent + e];
        size_t take = x->length < want - got ? (size_t)x->length : want - got;
        memcpy(buf + got, base + x->offset, take);
        got += take;
    }
    return got;
}

/* iref (§8.11.12): every reference, each to an item that exists and is not itself. */
static pc_status pc_hc_iref(pc_hc *c, const uint8_t *p, size_t n) {
    if (n < 4) return pc_hc_fail(c, PC_CORRUPT, "iref box too short");
    size_t id_bytes = p[0] == 0 ? 2 : 4;
    c->refs = calloc(n / id_bytes + 1, sizeof *c->refs); /* each reference takes at least id_bytes */
    if (c->refs == NULL) return PC_NO_MEMORY;
    size_t at = 4;
    char type[4];
    const uint8_t *body;
    size_t body_n;
    int r;
    while ((r = pc_hc_box(p, n, &at, type, &body, &body_n)) == 1) {
        if (body_n < id_bytes + 2) return pc_hc_fail(c, PC_CORRUPT, "iref entry too short");
        uint32_t from = id_bytes == 2 ? pc_hc_u16(body) : pc_hc_u32(body);
        uint32_t count = pc_hc_u16(body + id_bytes);
        if ((uint64_t)count * id_bytes > body_n - id_bytes - 2)
            return pc_hc_fail(c, PC_CORRUPT, "iref entry of item %u runs past its box", from);
        char name[5] = { type[0], type[1], type[2], type[3], 0 };
        if (pc_hc_find(c, from) == NULL)
            return pc_hc_fail(c, PC_CORRUPT, "reference (%s) from item %u, which does not exist", name, from);
        for (uint32_t k = 0; k < count; k++) {
            const uint8_t *q = body + id_bytes + 2 + (size_t)k * id_bytes;
            uint32_t to = id_bytes == 2 ? pc_hc_u16(q) : pc_hc_u32(q);
            if (to == from) return pc_hc_fail(c, PC_CORRUPT, "item %u references itself (iref %s)", from, name);
            if (pc_hc_find(c, to) == NULL)
                return pc_hc_fail(c, PC_CORRUPT, "item %u references item %u, which does not exist (iref %s)", from, to, name);
            memcpy(c->refs[c->ref_count].type, type, 4);
            c->refs[c->ref_count].from = from;
            c->refs[c->ref_count].to = to;
            c->ref_count++;
        }
    }
    if (r < 0) return pc_hc_fail(c, PC_CORRUPT, "a box in iref runs past its end");
    return PC_OK;
}

/* ipma (§8.11.14): each item's ispe, hvcC, av1C and auxC (the first of each). */
static pc_status pc_hc_ipma(pc_hc *c, const uint8_t *ipco, size_t ipco_n, const uint8_t *p, size_t n) {
    if (n < 8) return pc_hc_fail(c, PC_CORRUPT, "ipma box too short");
    int version = p[0], flags = p[3];
    /* The property boxes, once, so each association is found without walking ipco again. */
    size_t properties = 0, at = 0;
    char type[4];
    const uint8_t *body;
    size_t body_n;
    int r;
    while ((r = pc_hc_box(ipco, ipco_n, &at, type, &body, &body_n)) == 1) properties++;
    if (r < 0) return pc_hc_fail(c, PC_CORRUPT, "a property box in ipco runs past its end");
    typedef struct { char type[4]; const uint8_t *body; size_t n; } prop;
    prop *list = calloc(properties + 1, sizeof *list);
    if (list == NULL) return PC_NO_MEMORY;
    at = 0;
    for (size_t i = 0; i < properties; i++) {
        (void)pc_hc_box(ipco, ipco_n, &at, list[i].type, &list[i].body, &list[i].n);
    }
    uint32_t entries = pc_hc_u32(p + 4);
    at = 8;
    pc_status status = PC_OK;
    for (uint32_t e = 0; e < entries && status == PC_OK; e++) {
        size_t id_bytes = version < 1 ? 2 : 4;
        if (n - at < id_bytes + 1) { status = pc_hc_fail(c, PC_CORRUPT, "ipma box too short for its %u entries", entries); break; }
        uint32_t id = id_bytes == 2 ? pc_hc_u16(p + at) : pc_hc_u32(p + at);
        at += id_bytes;
        int count = p[at++];
        size_t index_bytes = (flags & 1) ? 2 : 1;
        if ((size_t)count * index_bytes > n - at) { status = pc_hc_fail(c, PC_CORRUPT, "ipma entry of item %u runs past the box", id); break; }
        pc_hc_item *item = pc_hc_find(c, id);
        for (int a = 0; a < count; a++, at += index_bytes) {
            uint32_t index = index_bytes == 2 ? pc_hc_u16(p + at) & 0x7FFF : p[at] & 0x7F;
            if (index == 0) continue;
            if (index > properties) { status = pc_hc_fail(c, PC_CORRUPT, "item %u is associated with property %u, which does not exist", id, index); break; }
            if (item == NULL) continue;
            const prop *q = &list[index - 1];
            if (memcmp(q->type, "ispe", 4) == 0 && !item->has_ispe) {
                if (q->n < 12) { status = pc_hc_fail(c, PC_CORRUPT, "ispe of item %u too short", id); break; }
                item->has_ispe = 1;
                item->width = pc_hc_u32(q->body + 4);
                item->height = pc_hc_u32(q->body + 8);
            } else if (memcmp(q->type, "hvcC", 4) == 0 && item->hvcc == NULL) {
                item->hvcc = q->body; item->hvcc_n = q->n;
            } else if (memcmp(q->type, "av1C", 4) == 0 && item->av1c == NULL) {
                item->av1c = q->body; item->av1c_n = q->n;
            } else if (memcmp(q->type, "auxC", 4) == 0 && q->n > 4) {
                /* aux_type, a NUL-terminated URN (§6.5.8); the alpha ones of HEVC and MPEG-B. */
                const char *urn = (const char *)q->body + 4;
                size_t len = strnlen(urn, q->n - 4);
                item->alpha = (len == 26 && memcmp(urn, "urn:mpeg:hevc:2015:auxid:1", 26) == 0) ||
                              (len == 44 && memcmp(urn, "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha", 44) == 0);
            }
        }
    }
    free(list);
    return status;
}

/* Bits of a payload, MSB first: bitreader.h (pc_u is AV1 §4.10.2 f(n), pc_ue §4.10.3 uvlc). */

/* sequence_header_obu() (AV1 §5.5.1) up to max_frame_width/height_minus_1. */
static int pc_hc_av1_sequence(const uint8_t *p, size_t n, uint32_t *width, uint32_t *height) {
    pc_bits bits = { p, n, 0, 0 };
    pc_bits *b = &bits;
    (void)pc_u(b, 3); /* seq_profile */
    (void)pc_u(b, 1); /* still_picture */
    int reduced = (int)pc_u(b, 1);
    if (reduced) {
        (void)pc_u(b, 5); /* seq_level_idx[0] */
    } else {
        int timing = (int)pc_u(b, 1), decoder_model = 0, buffer_delay_length = 0;
        if (timing) {
            (void)pc_u(b, 32); (void)pc_u(b, 32); /* num_units_in_display_tick, time_scale */
            if (pc_u(b, 1)) (void)pc_ue(b);         /* equal_picture_interval: num_ticks_per_picture_minus_1 */
            decoder_model = (int)pc_u(b, 1);
            if (decoder_model) {
                buffer_delay_length = (int)pc_u(b, 5) + 1;
                (void)pc_u(b, 32); (void)pc_u(b, 5); (void)pc_u(b, 5);
            }
        }
        int initial_display_delay = (int)pc_u(b, 1);
        int points = (int)pc_u(b, 5) + 1;
        for (int i = 0; i < points && !b->bad; i++) {
            (void)pc_u(b, 12); /* operating_point_idc */
            if (pc_u(b, 5) > 7) (void)pc_u(b, 1); /* seq_level_idx, seq_tier */
            if (decoder_model && pc_u(b, 1)) {
                (void)pc_u(b, buffer_delay_length); (void)pc_u(b, buffer_delay_length); (void)pc_u(b, 1);
            }
            if (initial_display_delay && pc_u(b, 1)) (void)pc_u(b, 4);
        }
    }
    int width_bits = (int)pc_u(b, 4) + 1, height_bits = (int)pc_u(b, 4) + 1;
    uint32_t w = pc_u(b, width_bits), h = pc_u(b, height_bits);
    if (b->bad) return 0;
    *width = w + 1;
    *height = h + 1;
    return 1;
}

/*
 * The OBUs of p[0..n) (AV1 §5.3): for each sequence header, its size is compared with the
 * item's ispe. *found counts them. Returns PC_OK or the refusal.
 */
static pc_status pc_hc_av1_obus(pc_hc *c, const pc_hc_item *item, const uint8_t *p, size_t n, int *found) {
    size_t at = 0;
    while (at < n) {
        uint8_t header = p[at++];
        int type = (header >> 3) & 15, extension = (header >> 2) & 1, has_size = (header >> 1) & 1;
        if (header & 0x80) return pc_hc_fail(c, PC_CORRUPT, "AV1 data of item %u has an OBU with its forbidden bit set", item->id);
        if (extension) { if (at >= n) break; at++; }
        uint64_t len = n - at;
        if (has_size) {
            len = 0;
            int i = 0;
            for (;; i++) { /* leb128(), AV1 §4.10.5: at most 8 bytes */
                if (at >= n || i >= 8) return pc_hc_fail(c, PC_CORRUPT, "AV1 data of item %u has a truncated OBU size", item->id);
                uint8_t byte = p[at++];
                len |= (uint64_t)(byte & 0x7F) << (i * 7);
                if (!(byte & 0x80)) break;
            }
            if (len > n - at) return pc_hc_fail(c, PC_CORRUPT, "AV1 data of item %u has an OBU past its end", item->id);
        }
        if (type == 1) { /* OBU_SEQUENCE_HEADER */
            uint32_t w, h;
            if (!pc_hc_av1_sequence(p + at, (size_t)len, &w, &h))
                return pc_hc_fail(c, PC_CORRUPT, "AV1 sequence header of item %u is truncated", item->id);
            if ((w != item->width || h != item->height) && (w != item->height || h != item->width)) {
                char text[PC_MESSAGE_CAPACITY];
                snprintf(text, sizeof text, "HEIF file is corrupt: item %u's AV1 sequence header codes %ux%u pixels, its ispe says %ux%u",
                         item->id, w, h, item->width, item->height);
                pc_set_error(c->m, text);
                return PC_CORRUPT;
            }
            (*found)++;
        }
        at += (size_t)len;
    }
    return PC_OK;
}

static pc_status pc_hc_sps(pc_hc *c, const pc_hc_item *item, const uint8_t *nal, size_t n, int *found) {
    if (n < 2 || ((nal[0] >> 1) & 0x3F) != 33) return PC_OK;
    pc_hevc_size s;
    if (!pc_hevc_sps_size(nal, n, &s))
        return pc_hc_fail(c, PC_CORRUPT, "HEVC SPS of item %u is truncated or inconsistent", item->id);
    /* ispe is the decoded picture's size, with or without the conformance window cropped
     * (writers differ): between the two, and the two at most the coding block padding apart.
     * libheif 1.15's encoder writes the size after an irot of 90 or 270 degrees: either way. */
    int fits = item->width >= s.width && item->width <= s.coded_width && item->height >= s.height &&
               item->height <= s.coded_height;
    int fits_turned = item->height >= s.width && item->height <= s.coded_width && item->width >= s.height &&
                      item->width <= s.coded_height;
    if ((!fits && !fits_turned) || s.coded_width - s.width > PC_HC_CODED_PADDING ||
        s.coded_height - s.height > PC_HC_CODED_PADDING) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "HEIF file is corrupt: item %u's HEVC SPS codes %ux%u pixels (%ux%u shown), its ispe says %ux%u",
                 item->id, s.coded_width, s.coded_height, s.width, s.height, item->width, item->height);
        pc_set_error(c->m, text);
        return PC_CORRUPT;
    }
    (*found)++;
    return PC_OK;
}

/* The size the decoder of a coded item will produce, from its configuration and its data. */
static pc_status pc_hc_coded_size(pc_hc *c, const pc_hc_item *item) {
    if (!item->has_loc || item->data_length == 0)
        return pc_hc_fail(c, PC_CORRUPT, "coded item %u has no data (iloc)", item->id);
    /* The item's data in one piece: a pointer into the file, or a copy of its extents (their
     * total is at most the file's or idat's size, checked in pc_hc_iloc). */
    const uint8_t *bytes;
    uint8_t *copy = NULL;
    if (item->extent_count == 1) {
        const pc_hc_extent *x = &c->extents[item->first_extent];
        bytes = (item->method == 0 ? c->data : c->idat) + x->offset;
    } else {
        copy = malloc((size_t)item->data_length);
        if (copy == NULL) return PC_NO_MEMORY;
        (void)pc_hc_read(c, item, copy, (size_t)item->data_length);
        bytes = copy;
    }
    size_t n = (size_t)item->data_length;
    pc_status status = PC_OK;
    int found = 0;
    if (pc_hc_is(item, "hvc1")) {
        const uint8_t *h = item->hvcc;
        size_t hn = item->hvcc_n;
        if (h == NULL || hn < 23) { free(copy); return pc_hc_fail(c, PC_CORRUPT, "HEVC item %u has no hvcC", item->id); }
        size_t length_size = (size_t)(h[21] & 3) + 1;
        /* hvcC's NAL unit arrays (ISO/IEC 14496-15 §8.3.3.1.2). */
        size_t at = 23;
        for (int a = 0, arrays = h[22]; a < arrays && status == PC_OK; a++) {
            if (hn - at < 3) { status = pc_hc_fail(c, PC_CORRUPT, "hvcC of item %u is truncated", item->id); break; }
            uint32_t count = pc_hc_u16(h + at + 1);
            at += 3;
            for (uint32_t k = 0; k < count && status == PC_OK; k++) {
                if (hn - at < 2) { status = pc_hc_fail(c, PC_CORRUPT, "hvcC of item %u is truncated", item->id); break; }
                size_t len = pc_hc_u16(h + at);
                at += 2;
                if (len > hn - at) { status = pc_hc_fail(c, PC_CORRUPT, "hvcC of item %u is truncated", item->id); break; }
                status = pc_hc_sps(c, item, h + at, len, &found);
                at += len;
            }
        }
        /* The item's own NAL units (length-prefixed, lengthSizeMinusOne + 1 bytes): an SPS there
         * replaces hvcC's for the decoder. */
        for (size_t at2 = 0; status == PC_OK && at2 < n;) {
            if (n - at2 < length_size) { status = pc_hc_fail(c, PC_CORRUPT, "HEVC data of item %u is truncated", item->id); break; }
            uint64_t len = pc_hc_un(bytes + at2, (int)length_size);
            at2 += length_size;
            if (len > n - at2) { status = pc_hc_fail(c, PC_CORRUPT, "HEVC data of item %u has a NAL unit past its end", item->id); break; }
            status = pc_hc_sps(c, item, bytes + at2, (size_t)len, &found);
            at2 += (size_t)len;
        }
    } else {
        const uint8_t *a = item->av1c;
        if (a == NULL || item->av1c_n < 4) { free(copy); return pc_hc_fail(c, PC_CORRUPT, "AV1 item %u has no av1C", item->id); }
        status = pc_hc_av1_obus(c, item, a + 4, item->av1c_n - 4, &found); /* configOBUs */
        if (status == PC_OK) status = pc_hc_av1_obus(c, item, bytes, n, &found);
    }
    free(copy);
    if (status == PC_OK && found == 0)
        status = pc_hc_fail(c, PC_CORRUPT, "coded item %u has no %s", item->id, pc_hc_is(item, "hvc1") ? "HEVC SPS" : "AV1 sequence header");
    return status;
}

/* A grid (§6.6.2.3) or overlay (§6.6.2.4): its payload, its sources and its output size. */
static pc_status pc_hc_derived_item(pc_hc *c, pc_hc_item *item) {
    int grid = pc_hc_is(item, "grid"), overlay = pc_hc_is(item, "iovl");
    uint32_t sources = 0;
    pc_hc_item *first = NULL;
    for (size_t r = 0; r < c->ref_count; r++) {
        if (c->refs[r].from != item->id || memcmp(c->refs[r].type, "dimg", 4) != 0) continue;
        pc_hc_item *tile = pc_hc_find(c, c->refs[r].to);
        if (tile == NULL) return PC_CORRUPT; /* (checked in pc_hc_iref) */
        if (grid && !pc_hc_coded(tile))
            return pc_hc_fail(c, PC_CORRUPT, "tile %u of grid %u is not a coded image (a grid of derived images)", tile->id, item->id);
        if (!pc_hc_coded(tile) && !pc_hc_is(tile, "grid"))
            return pc_hc_fail(c, PC_CORRUPT, "item %u derives from item %u, which is not an image", item->id, tile->id);
        if (!tile->has_ispe) return pc_hc_fail(c, PC_CORRUPT, "image item %u has no size (ispe)", tile->id);
        if (first == NULL) first = tile;
        else if (grid && (tile->width != first->width || tile->height != first->height))
            return pc_hc_fail(c, PC_CORRUPT, "the tiles of grid %u are not all one size (tile %u)", item->id, tile->id);
        sources++;
    }
    if (first == NULL) return pc_hc_fail(c, PC_CORRUPT, "derived item %u has no source image (iref dimg)", item->id);
    if (pc_hc_is(item, "iden")) {
        if (sources != 1) return pc_hc_fail(c, PC_CORRUPT, "identity item %u has %u sources, not 1", item->id, sources);
        return PC_OK;
    }
    if (!item->has_loc) return pc_hc_fail(c, PC_CORRUPT, "derived item %u has no payload (iloc)", item->id);
    uint8_t payload[16];
    size_t got = pc_hc_read(c, item, payload, sizeof payload);
    uint64_t out_w, out_h;
    if (grid) {
        /* ImageGrid: version, flags, rows_minus_one, columns_minus_one, output_width/height of
         * 16 bits, or 32 when flags & 1. */
        int large = got >= 2 && (payload[1] & 1);
        if (got < (size_t)(large ? 12 : 8) || payload[0] != 0)
            return pc_hc_fail(c, PC_CORRUPT, "grid %u has a short or unknown ImageGrid payload", item->id);
        uint32_t rows = (uint32_t)payload[2] + 1, columns = (uint32_t)payload[3] + 1;
        out_w = large ? pc_hc_u32(payload + 4) : pc_hc_u16(payload + 4);
        out_h = large ? pc_hc_u32(payload + 8) : pc_hc_u16(payload + 6);
        if (sources != rows * columns)
            return pc_hc_fail(c, PC_CORRUPT, "grid %u has %u tiles, not rows x columns", item->id, sources);
        if (out_w == 0 || out_h == 0 || out_w > (uint64_t)columns * first->width || out_h > (uint64_t)rows * first->height)
            return pc_hc_fail(c, PC_CORRUPT, "grid %u's output is larger than its %u tiles cover", item->id, sources);
        /* No column or row of tiles wholly outside the output (each costs a decode), and a
         * single column's or row's tile at most the coding padding wider or taller than the
         * output (libheif 1.15 writes an odd-sized image as a 1x1 grid of a tile 1 larger). */
        uint64_t excess_w = (uint64_t)columns * first->width - out_w, excess_h = (uint64_t)rows * first->height - out_h;
        if (excess_w >= first->width || excess_h >= first->height ||
            (columns == 1 && excess_w > PC_HC_CODED_PADDING) || (rows == 1 && excess_h > PC_HC_CODED_PADDING))
            return pc_hc_fail(c, PC_CORRUPT, "the tiles of grid %u are far larger than its output", item->id);
    } else if (overlay) {
        int large = got >= 2 && (payload[1] & 1);
        if (got < (size_t)(large ? 18 : 14) || payload[0] != 0)
            return pc_hc_fail(c, PC_CORRUPT, "overlay %u has a short or unknown ImageOverlay payload", item->id);
        out_w = large ? pc_hc_u32(payload + 10) : pc_hc_u16(payload + 10);
        out_h = large ? pc_hc_u32(payload + 14) : pc_hc_u16(payload + 12);
    } else {
        return pc_hc_fail(c, PC_UNSUPPORTED, "derived item %u is of a type not supported", item->id);
    }
    if (!item->has_ispe || item->width != out_w || item->height != out_h) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "HEIF file is corrupt: %s %u's output is %llux%llu, its ispe says %ux%u", grid ? "grid" : "overlay",
                 item->id, (unsigned long long)out_w, (unsigned long long)out_h, item->width, item->height);
        pc_set_error(c->m, text);
        return PC_CORRUPT;
    }
    return PC_OK;
}

/* Depth-first over the references from `item`: a cycle or a chain deeper than the limit fails. */
static pc_status pc_hc_walk(pc_hc *c, pc_hc_item *item, int level) {
    if (item->state == 2) return PC_OK;
    if (item->state == 1) return pc_hc_fail(c, PC_CORRUPT, "item %u references itself through other items (a cycle in iref)", item->id);
    if (level > PC_HEIF_MAX_DERIVATION)
        return pc_hc_fail(c, PC_CORRUPT, "item references nest deeper than %u (at item %u)", PC_HEIF_MAX_DERIVATION, item->id);
    item->state = 1;
    for (size_t r = 0; r < c->ref_count; r++) {
        if (c->refs[r].from != item->id) continue;
        pc_hc_item *to = pc_hc_find(c, c->refs[r].to);
        if (to == NULL) continue;
        pc_status s = pc_hc_walk(c, to, level + 1);
        if (s != PC_OK) return s;
    }
    item->state = 2;
    return PC_OK;
}

static int pc_hc_cmp_ref(const void *a, const void *b) {
    uint32_t x = ((const pc_hc_ref *)a)->from, y = ((const pc_hc_ref *)b)->from;
    return x < y ? -1 : x > y;
}

pc_status pc_heif_check(const uint8_t *data, size_t size, uint64_t max_pixels, uint32_t *width, uint32_t *height,
                        pc_messages *m) {
    pc_hc c;
    memset(&c, 0, sizeof c);
    c.data = data; c.size = size; c.max_pixels = max_pixels; c.m = m;
    const uint8_t *meta = NULL, *body;
    size_t meta_n = 0, body_n, at = 0;
    char type[4];
    int r;
    while ((r = pc_hc_box(data, size, &at, type, &body, &body_n)) == 1) {
        if (memcmp(type, "meta", 4) == 0) { meta = body; meta_n = body_n; break; }
    }
    if (meta == NULL) {
        return pc_hc_fail(&c, PC_CORRUPT, "%s", r < 0 ? "a top-level box runs past the end of the file" : "no meta box");
    }
    if (meta_n < 4) return pc_hc_fail(&c, PC_CORRUPT, "meta box too short");
    const uint8_t *pitm = NULL, *iinf = NULL, *iloc = NULL, *iref = NULL, *iprp = NULL;
    size_t pitm_n = 0, iinf_n = 0, iloc_n = 0, iref_n = 0, iprp_n = 0;
    at = 4; /* FullBox version and flags */
    while ((r = pc_hc_box(meta, meta_n, &at, type, &body, &body_n)) == 1) {
        if (memcmp(type, "pitm", 4) == 0 && pitm == NULL) { pitm = body; pitm_n = body_n; }
        else if (memcmp(type, "iinf", 4) == 0 && iinf == NULL) { iinf = body; iinf_n = body_n; }
        else if (memcmp(type, "iloc", 4) == 0 && iloc == NULL) { iloc = body; iloc_n = body_n; }
        else if (memcmp(type, "iref", 4) == 0 && iref == NULL) { iref = body; iref_n = body_n; }
        else if (memcmp(type, "iprp", 4) == 0 && iprp == NULL) { iprp = body; iprp_n = body_n; }
        else if (memcmp(type, "idat", 4) == 0 && c.idat == NULL) { c.idat = body; c.idat_n = body_n; }
    }
    if (r < 0) return pc_hc_fail(&c, PC_CORRUPT, "a box in meta runs past its end");
    if (pitm == NULL || iinf == NULL || iloc == NULL || iprp == NULL)
        return pc_hc_fail(&c, PC_CORRUPT, "meta box lacks %s", pitm == NULL ? "pitm" : iinf == NULL ? "iinf" : iloc == NULL ? "iloc" : "iprp");
    pc_status status = pc_hc_iinf(&c, iinf, iinf_n);
    if (status == PC_OK) status = pc_hc_iloc(&c, iloc, iloc_n);
    if (status == PC_OK && iref != NULL) status = pc_hc_iref(&c, iref, iref_n);
    if (status == PC_OK) {
        const uint8_t *ipco = NULL, *ipma = NULL;
        size_t ipco_n = 0, ipma_n = 0;
        at = 0;
        while ((r = pc_hc_box(iprp, iprp_n, &at, type, &body, &body_n)) == 1) {
            if (memcmp(type, "ipco", 4) == 0 && ipco == NULL) { ipco = body; ipco_n = body_n; }
            else if (memcmp(type, "ipma", 4) == 0 && ipma == NULL) { ipma = body; ipma_n = body_n; }
        }
        if (r < 0 || ipco == NULL || ipma == NULL) status = pc_hc_fail(&c, PC_CORRUPT, "iprp box lacks ipco or ipma");
        else status = pc_hc_ipma(&c, ipco, ipco_n, ipma, ipma_n);
    }
    if (status == PC_OK) {
        uint32_t primary_id = pitm_n >= 6 ? (pitm[0] == 0 ? pc_hc_u16(pitm + 4) : (pitm_n >= 8 ? pc_hc_u32(pitm + 4) : 0)) : 0;
        pc_hc_item *primary = pitm_n >= 6 ? pc_hc_find(&c, primary_id) : NULL;
        if (primary == NULL) status = pc_hc_fail(&c, PC_CORRUPT, "the primary item %u (pitm) does not exist", primary_id);
        else if (!pc_hc_coded(primary) && !pc_hc_derived(primary)) {
            char name[5] = { primary->type[0], primary->type[1], primary->type[2], primary->type[3], 0 };
            for (int i = 0; i < 4; i++) if (name[i] < 0x20 || name[i] > 0x7E) name[i] = '?';
            status = pc_hc_fail(&c, PC_UNSUPPORTED, "the primary item %u is of type '%s', not an image libheif decodes here", primary_id, name);
        }
    }
    /* Cycles and depth over every reference (sorted by source, so each walk is a scan). */
    if (status == PC_OK) {
        if (c.ref_count > 1) qsort(c.refs, c.ref_count, sizeof *c.refs, pc_hc_cmp_ref);
        for (size_t i = 0; i < c.item_count && status == PC_OK; i++) status = pc_hc_walk(&c, &c.items[i], 0);
    }
    /* Each image item: its size, its coded stream's size, its derivation. */
    for (size_t i = 0; i < c.item_count && status == PC_OK; i++) {
        pc_hc_item *item = &c.items[i];
        if (!pc_hc_coded(item) && !pc_hc_derived(item)) continue;
        if (!item->has_ispe || item->width == 0 || item->height == 0) {
            if (!pc_hc_is(item, "iden")) status = pc_hc_fail(&c, PC_CORRUPT, "image item %u has no size (ispe)", item->id);
            if (status != PC_OK) break;
        }
        if ((uint64_t)item->width * item->height > max_pixels) {
            char text[PC_MESSAGE_CAPACITY];
            snprintf(text, sizeof text, "image item %u is %ux%u pixels, over the %llu pixels a photo may have", item->id,
                     item->width, item->height, (unsigned long long)max_pixels);
            pc_set_error(m, text);
            *width = item->width;
            *height = item->height;
            status = PC_TOO_LARGE;
            break;
        }
        status = pc_hc_coded(item) ? pc_hc_coded_size(&c, item) : pc_hc_derived_item(&c, item);
    }
    /* An alpha plane of another size than its master's (libheif 1.15 scales none). */
    for (size_t r2 = 0; r2 < c.ref_count && status == PC_OK; r2++) {
        if (memcmp(c.refs[r2].type, "auxl", 4) != 0) continue;
        pc_hc_item *aux = pc_hc_find(&c, c.refs[r2].from), *master = pc_hc_find(&c, c.refs[r2].to);
        if (aux == NULL || master == NULL || !aux->alpha) continue;
        if (aux->width != master->width || aux->height != master->height)
            status = pc_hc_fail(&c, PC_CORRUPT, "alpha plane %u is not the size of its image %u", aux->id, master->id);
    }
    free(c.items);
    free(c.extents);
    free(c.refs);
    return status;
}
