/* libpng decode from memory with setjmp error recovery (libpng-manual.txt "Setup", "Input transformations"). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <png.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include "CImageCodec.h"
#include "messages.h"
#include "reduce.h"
#include "color.h"
#include "unfilter.h"

/*
 * The image data fed from here (issue 15 item 4). zlib's streaming inflate was 47 % of the
 * instructions of a PNG import, its Adler-32 8 % and libpng's unfiltering 23 % (Debian's libpng
 * has no SIMD filter code). libpng keeps everything else (chunk parsing and CRCs before and
 * after the image data, Adam7, transformations, gamma): once png_read_info has read the first
 * IDAT header, the IDAT run is inflated here — whole by libdeflate (about twice as fast as zlib,
 * but all of it in memory) when it fits the caps below, else streaming, PC_PNG_FEED_BUFFER at a
 * time, by Intel ISA-L's igzip (also about twice zlib's speed, SIMD Adler-32) — each row is
 * unfiltered here
 * (unfilter.c), and libpng is handed, in place of the rest of the run, the rows with filter
 * type None re-encoded as a zlib stream of stored blocks (RFC 1951 §3.2.4: LEN, NLEN, then
 * the bytes), which zlib's inflate copies through. The stored stream is never built:
 * pc_png_read produces its bytes on demand.
 *
 * Taken only when all of these hold (otherwise libpng decodes the file as it is, so a damaged
 * file gets libpng's own verdict and message):
 *  - the IDAT chunks are consecutive, lie within the file, and each one's CRC is right;
 *  - the zlib header (RFC 1950 §2.2) declares a 32 KiB window (CINFO 7: no distance libdeflate
 *    or ISA-L with a 32 KiB history accepts can be one libpng's zlib would refuse as too far back), no
 *    preset dictionary, and a right FCHECK;
 *  - whole: the inflated size the header implies (PNG spec §7.2, §8.2) is at most
 *    PC_PNG_INFLATE_MAX, at most PC_PNG_INFLATE_RATIO times the compressed bytes, and fits in
 *    the process-wide PC_PNG_INFLATE_POOL together with the other workers' (sizes a file
 *    declares are untrusted: what is allocated is bounded by the bytes given and by these
 *    caps); libdeflate inflates the run to exactly that size, consuming every byte of it, with
 *    the right Adler-32.
 * Streaming finds a damaged stream only as it goes (an inflate error, too little or too much data,
 * a wrong Adler-32, a filter type over 4): then the file is decoded again from the start by
 * libpng alone (pc_png_decode), whose verdict and messages are the ones given.
 * libpng is told to skip the checks already made (critical-chunk CRCs and Adler-32) while it
 * reads the re-encoded data only, and to check again for the chunks after it.
 */
/*
 * Largest inflated image data taken whole, and the most held at once by all workers of the
 * process, bytes (beyond: streamed): 24 MiB, counting the joined copy of image data split over
 * several IDAT chunks (so a 2560 × 1600 RGB image, 12 MB, and smaller are taken; the bench
 * corpus's 3840 × 2160 to 5120 × 2880 PNGs, 25–59 MB, are streamed). The whole-buffer path costs
 * that memory on top of the other worker's decode, so this bounds what it adds to an import's
 * peak RSS, which keeps under 100 MB: the bench corpus import peaked at 116 MB with 48 MiB,
 * 93–105 MB with 32 MiB and 69–70 MB with 24 MiB (/usr/bin/time -f %M, release build,
 * --jobs 2, five runs each), for 4–8 % more CPU on its PNGs than with 32 MiB. Larger images
 * stream through ISA-L at about libdeflate's speed: a 64 MiB cap (every bench PNG whole) saved
 * about a tenth of the PNG subset's CPU (user time down, page faults of the fresh buffer up)
 * for 106 MB peak RSS with --jobs 1.
 */
#define PC_PNG_INFLATE_MAX ((size_t)24 << 20)
#define PC_PNG_INFLATE_POOL ((size_t)24 << 20)
/*
 * Bytes inflated at a time when streaming (then unfiltered row by row): ISA-L goes through its
 * own 64 KiB history buffer for the first 32 KiB of each call, so calls are kept large.
 */
#define PC_PNG_FEED_BUFFER ((size_t)256 << 10)
/* Most bytes DEFLATE can inflate from one byte (RFC 1951: a 258-byte match in 2 bits: 1032). */
#define PC_PNG_INFLATE_RATIO 1032
/* Stored block payload (RFC 1951 §3.2.4: LEN is 16 bits). */
#define PC_PNG_STORED_BLOCK 65535u
/* IDAT chunks of the re-encoded stream after the first, bytes (under png_set_chunk_malloc_max). */
#define PC_PNG_SYNTH_CHUNK ((size_t)4 << 20)

static atomic_size_t pc_png_inflate_in_use;

/* The re-encoded stream and where pc_png_read is in it. */
typedef struct pc_png_whole {
    /* Where the filtered rows come from: the image data inflated whole by libdeflate (raw), or
     * ISA-L's streaming inflate of the IDAT run read in place (z). */
    uint8_t *raw;            /* whole: the inflated image data (filter byte + row, per row and pass) */
    size_t raw_size;         /* bytes of image data (filter bytes included) the header implies */
    size_t reserved;         /* bytes counted in pc_png_inflate_in_use */
    size_t raw_at;           /* whole: offset of the next filtered row in raw */
    struct inflate_state *z; /* streaming: ISA-L's inflate of the stream after its zlib header (checked
                                here), checking the Adler-32 after the DEFLATE data (RFC 1950) */
    uint8_t *buffer;         /* streaming: inflated rows not yet handed out, from buffer + buffer_at */
    size_t buffer_capacity, buffer_at, buffer_end;
    size_t inflated;         /* streaming: bytes of image data inflated so far */
    const uint8_t *in;       /* streaming: next compressed byte */
    size_t in_left;          /* bytes of it left in the current IDAT chunk */
    size_t next_chunk;       /* file offset of the next IDAT chunk of the run (run_end: none) */
    size_t run_end;          /* file offset of the first chunk after the IDAT run */
    /* Row geometry (PNG spec §7.2, §8.2): pass (0 and only pass when not interlaced), rows left. */
    png_uint_32 width, height;
    unsigned bits;           /* bits per pixel */
    size_t bpp;              /* bytes per complete pixel, at least 1 (PNG spec §9.2) */
    int interlace, pass;
    png_uint_32 rows_left;
    size_t row_bytes;        /* of the current pass, without the filter byte */
    uint8_t *rows;           /* streaming: two rows (filter byte + bytes) taken in turn; then zeros */
    size_t row_capacity;
    const uint8_t *prev;     /* the previous row of the pass, unfiltered (the zeros for its first) */
    uint8_t *cur;            /* the row being handed out: 0 (filter type None), then unfiltered bytes */
    size_t cur_size, cur_at;
    /* The stored-block stream handed to libpng. */
    size_t raw_emitted;      /* image data bytes handed out */
    uint8_t head[5];         /* the zlib header, or a stored block's header */
    size_t head_length, head_at;
    size_t block_left;       /* payload bytes left in the current stored block */
    size_t tail_at;          /* bytes of the (ignored, zero) Adler-32 handed out */
    size_t stream_size;      /* 2 + raw_size + 5 per stored block + 4 */
    size_t stream_offset;    /* next byte of the stream to hand out */
    size_t chunk_left;       /* stream bytes left in the current IDAT chunk */
    uint8_t frame[12];       /* CRC of the chunk just ended, then the next chunk's length and type */
    size_t frame_length, frame_offset;
    size_t suffix;           /* offset in the file of the first chunk after the IDAT run */
} pc_png_whole;

typedef struct pc_png_state {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size, position;
    pc_messages *messages;
    pc_box box;
    uint8_t *row;          /* one row (of the image, or of an Adam7 pass) */
    uint8_t *icc;          /* copy of the iCCP profile (libpng inflates it within PC_PNG_CHUNK_MAX) */
    size_t icc_size;
    pc_png_whole *whole;   /* non-NULL once the image data is fed from here (pc_png_feed_start) */
    int retry;             /* the fed image data turned out damaged: decode again with libpng alone */
} pc_png_state;

/*
 * Most bytes libpng may allocate for one ancillary chunk, or for a compressed text or
 * ICC profile once inflated: libpng's own default (libpng-manual.txt
 * png_set_chunk_malloc_max; pnglibconf PNG_USER_CHUNK_MALLOC_MAX 8000000), which
 * Debian's build leaves unset: an ICC profile that would inflate past it is dropped with
 * a warning. (Chunk payloads are bounded by the file itself: pc_png_chunks_fit.)
 */
#define PC_PNG_CHUNK_MAX 8000000
/* Ancillary chunks libpng keeps in memory at once (png_set_chunk_cache_max). */
#define PC_PNG_CHUNK_CACHE 64
/*
 * Largest eXIf chunk read, in bytes (1 MiB). libpng keeps a copy of the chunk and we copy it
 * once more for the EXIF reader, so an unbounded eXIf cost three times its length per worker
 * (two 30 MB eXIf chunks: 230 MB peak with --jobs 2). A JPEG's EXIF is at most 65,533 bytes
 * (one APP1 segment, EXIF 2.32 §4.5.4), so real PNG eXIf chunks (copied from a JPEG) fit; a
 * larger one is skipped unread (libpng-manual.txt png_set_keep_unknown_chunks) and the image
 * is imported without its EXIF fields.
 */
#define PC_PNG_EXIF_MAX (1u << 20)
/* libpng's default width/height limits, stated here: rows are at most 1e6 × 8 bytes. */
#define PC_PNG_MAX_EDGE 1000000

static void pc_png_error(png_structp png, png_const_charp text) {
    pc_png_state *s = png_get_error_ptr(png);
    pc_set_error(s->messages, text);
    png_longjmp(png, 1);
}

static void pc_png_warning(png_structp png, png_const_charp text) {
    pc_png_state *s = png_get_error_ptr(png);
    pc_add_warning(s->messages, text);
}

static uint32_t pc_png_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void pc_png_put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* The fed image data is not what the header promised: start over with libpng alone (pc_png_decode). */
static void pc_png_feed_fail(png_structp png, pc_png_state *s) {
    s->retry = 1;
    png_error(png, "image data fed from png.c is damaged"); /* never shown: the retry clears it */
}

/* Streaming: the next compressed byte run of the IDAT chunks; 0 when the run is over. */
static int pc_png_feed_input(const pc_png_state *s, pc_png_whole *w) {
    while (w->in_left == 0) {
        if (w->next_chunk >= w->run_end) return 0;
        size_t length = pc_png_be32(s->data + w->next_chunk);
        w->in = s->data + w->next_chunk + 8;
        w->in_left = length;
        w->next_chunk += 12 + length;
    }
    return 1;
}

/*
 * Streaming: one call of isal_inflate on the next input; 0 when there is no input left, or
 * when the call neither took input nor gave output (never expected: stops a loop on it).
 */
static int pc_png_feed_step(pc_png_state *s, pc_png_whole *w, uint8_t *target, size_t length, int *result) {
    if (!pc_png_feed_input(s, w)) return 0;
    w->z->next_in = (uint8_t *)w->in;
    w->z->avail_in = (uint32_t)w->in_left;
    w->z->next_out = target;
    w->z->avail_out = (uint32_t)length;
    *result = isal_inflate(w->z);
    size_t taken = w->in_left - w->z->avail_in;
    w->in_left = w->z->avail_in;
    w->in = w->z->next_in;
    return taken > 0 || w->z->avail_out < length || w->z->block_state == ISAL_BLOCK_FINISH;
}

/* Streaming: inflates `length` bytes (all, or fails the feed) to the end of the buffer. */
static void pc_png_feed_inflate(png_structp png, pc_png_state *s, size_t length) {
    pc_png_whole *w = s->whole;
    while (length > 0) {
        int result = 0;
        if (w->z->block_state == ISAL_BLOCK_FINISH) pc_png_feed_fail(png, s); /* too little data */
        uint8_t *target = w->buffer + w->buffer_end;
        if (!pc_png_feed_step(s, w, target, length, &result) || result < 0) pc_png_feed_fail(png, s);
        size_t produced = (size_t)(w->z->next_out - target);
        w->buffer_end += produced;
        w->inflated += produced;
        length -= produced;
    }
}

/* Streaming, after the last row: the stream ends there (its Adler-32 right), and no data follows. */
static void pc_png_feed_finish(png_structp png, pc_png_state *s) {
    pc_png_whole *w = s->whole;
    uint8_t spare;
    while (w->z->block_state != ISAL_BLOCK_FINISH) {
        int result = 0;
        if (!pc_png_feed_step(s, w, &spare, 1, &result) || result < 0 || w->z->avail_out == 0)
            pc_png_feed_fail(png, s); /* truncated, damaged, or too much data */
    }
    /* Data after the stream: whole bytes ISA-L read ahead into its bit buffer, or input left. */
    if (w->z->read_in_length >= 8 || w->z->tmp_in_size > 0) pc_png_feed_fail(png, s);
    while (pc_png_feed_input(s, w)) {
        if (w->in_left > 0) pc_png_feed_fail(png, s);
    }
}

/* Makes the next row current: taken (whole) or inflated (streaming), unfiltered, filter type set to None. */
static void pc_png_feed_row(png_structp png, pc_png_state *s) {
    pc_png_whole *w = s->whole;
    while (w->rows_left == 0) {
        /* The next pass that has pixels (PNG spec §8.2: empty passes are left out). */
        if (w->interlace == PNG_INTERLACE_NONE || w->pass >= 6) pc_png_feed_fail(png, s);
        w->pass++;
        png_uint_32 columns = PNG_PASS_COLS(w->width, w->pass), rows = PNG_PASS_ROWS(w->height, w->pass);
        if (columns == 0 || rows == 0) continue;
        w->rows_left = rows;
        w->row_bytes = ((size_t)columns * w->bits + 7) / 8;
        w->prev = w->rows + 2 * w->row_capacity;
    }
    uint8_t *row;
    size_t size = 1 + w->row_bytes;
    if (w->raw != NULL) {
        if (size > w->raw_size - w->raw_at) pc_png_feed_fail(png, s);
        row = w->raw + w->raw_at;
        w->raw_at += size;
    } else {
        if (size > w->buffer_end - w->buffer_at) {
            /* Keep the previous row (a copy: the buffer is refilled), move the part of this one
             * already inflated to the front, and inflate as much as fits and is left. */
            if (w->prev != w->rows + 2 * w->row_capacity && w->prev != w->rows) {
                memcpy(w->rows, w->prev, w->row_bytes);
                w->prev = w->rows;
            }
            memmove(w->buffer, w->buffer + w->buffer_at, w->buffer_end - w->buffer_at);
            w->buffer_end -= w->buffer_at;
            w->buffer_at = 0;
            size_t want = w->buffer_capacity - w->buffer_end;
            if (want > w->raw_size - w->inflated) want = w->raw_size - w->inflated;
            if (want < size - w->buffer_end) pc_png_feed_fail(png, s); /* rows past the image data */
            pc_png_feed_inflate(png, s, want);
            if (w->inflated == w->raw_size) pc_png_feed_finish(png, s);
        }
        row = w->buffer + w->buffer_at;
        w->buffer_at += size;
    }
    if (!pc_unfilter_row(row[0], row + 1, w->prev, w->row_bytes, w->bpp)) pc_png_feed_fail(png, s);
    row[0] = PNG_FILTER_VALUE_NONE;
    w->prev = row + 1;
    w->cur = row;
    w->cur_size = size;
    w->cur_at = 0;
    w->rows_left--;
}

/* Copies the next `length` bytes of the stored-block stream (RFC 1950 header, RFC 1951 §3.2.4 blocks). */
static void pc_png_feed_copy(png_structp png, pc_png_state *s, uint8_t *target, size_t length) {
    pc_png_whole *w = s->whole;
    while (length > 0) {
        size_t n;
        if (w->head_at < w->head_length) {
            n = w->head_length - w->head_at < length ? w->head_length - w->head_at : length;
            memcpy(target, w->head + w->head_at, n);
            w->head_at += n;
        } else if (w->block_left > 0) {
            if (w->cur_at == w->cur_size) pc_png_feed_row(png, s);
            n = w->cur_size - w->cur_at;
            if (n > w->block_left) n = w->block_left;
            if (n > length) n = length;
            memcpy(target, w->cur + w->cur_at, n);
            w->cur_at += n;
            w->block_left -= n;
            w->raw_emitted += n;
        } else if (w->raw_emitted < w->raw_size) {
            size_t payload = w->raw_size - w->raw_emitted;
            if (payload > PC_PNG_STORED_BLOCK) payload = PC_PNG_STORED_BLOCK;
            w->head[0] = w->raw_emitted + payload == w->raw_size ? 1 : 0; /* BFINAL, BTYPE 00 */
            w->head[1] = (uint8_t)payload;
            w->head[2] = (uint8_t)(payload >> 8);
            w->head[3] = (uint8_t)~payload;
            w->head[4] = (uint8_t)(~payload >> 8);
            w->head_length = 5;
            w->head_at = 0;
            w->block_left = payload;
            continue;
        } else {
            /* The Adler-32 of the stored stream: libpng is told to ignore it (pc_png_feed_start). */
            n = 4 - w->tail_at < length ? 4 - w->tail_at : length;
            if (n == 0) png_error(png, "Read Error");
            memset(target, 0, n);
            w->tail_at += n;
        }
        target += n;
        length -= n;
    }
}

/*
 * An IDAT chunk of the re-encoded stream has had all its data handed out: next come its CRC
 * (not computed: libpng skips it, see pc_png_feed_start), then the next chunk's header while
 * stream bytes are left.
 */
static void pc_png_end_chunk(pc_png_whole *w) {
    memset(w->frame, 0, sizeof w->frame);
    w->frame_length = 4;
    w->frame_offset = 0;
    size_t rest = w->stream_size - w->stream_offset;
    if (rest > 0) {
        size_t next = rest < PC_PNG_SYNTH_CHUNK ? rest : PC_PNG_SYNTH_CHUNK;
        pc_png_put_be32(w->frame + 4, (uint32_t)next);
        memcpy(w->frame + 8, "IDAT", 4);
        w->frame_length = 12;
    }
}

/* Hands libpng the rest of the IDAT run as stored blocks, then the file after the run. */
static void pc_png_read_whole(png_structp png, pc_png_state *s, png_bytep target, size_t length) {
    pc_png_whole *w = s->whole;
    while (length > 0) {
        size_t n;
        if (w->chunk_left > 0) {
            n = w->chunk_left < length ? w->chunk_left : length;
            pc_png_feed_copy(png, s, target, n);
            w->stream_offset += n;
            w->chunk_left -= n;
            if (w->chunk_left == 0) pc_png_end_chunk(w);
        } else if (w->frame_offset < w->frame_length) {
            n = w->frame_length - w->frame_offset < length ? w->frame_length - w->frame_offset : length;
            memcpy(target, w->frame + w->frame_offset, n);
            w->frame_offset += n;
            if (w->frame_offset == w->frame_length && w->frame_length == 12) {
                size_t rest = w->stream_size - w->stream_offset;
                w->chunk_left = rest < PC_PNG_SYNTH_CHUNK ? rest : PC_PNG_SYNTH_CHUNK;
            }
        } else {
            if (length > s->size - w->suffix) png_error(png, "Read Error");
            memcpy(target, s->data + w->suffix, length);
            w->suffix += length;
            return;
        }
        target += n;
        length -= n;
    }
}

static void pc_png_read(png_structp png, png_bytep target, size_t length) {
    pc_png_state *s = png_get_io_ptr(png);
    if (s->whole != NULL) { pc_png_read_whole(png, s, target, length); return; }
    if (length > s->size - s->position) png_error(png, "Read Error"); /* libpng's own wording */
    memcpy(target, s->data + s->position, length);
    s->position += length;
}

static void pc_png_whole_free(pc_png_whole *w) {
    if (w == NULL) return;
    /* mmap'd, not malloc'd: returned to the system at once (glibc keeps freed heap blocks
     * under its raised mmap threshold, which left 25 MB resident after a 25 MB image). */
    if (w->raw != NULL) munmap(w->raw, w->raw_size);
    if (w->reserved > 0) atomic_fetch_sub(&pc_png_inflate_in_use, w->reserved);
    free(w->z);
    free(w->buffer);
    free(w->rows);
    free(w);
}

/* Bytes of image data (filter byte + packed row, per row of each pass) PNG spec §7.2/§8.2 implies. */
static uint64_t pc_png_inflated_size(png_uint_32 width, png_uint_32 height, int bit_depth, int color_type,
                                     int interlace) {
    int channels = color_type == PNG_COLOR_TYPE_RGB ? 3 : color_type == PNG_COLOR_TYPE_RGB_ALPHA ? 4
                 : color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : 1;
    uint64_t bits = (uint64_t)channels * (uint64_t)bit_depth;
    if (interlace == PNG_INTERLACE_NONE) return (uint64_t)height * (1 + ((uint64_t)width * bits + 7) / 8);
    uint64_t total = 0;
    for (int pass = 0; pass < 7; pass++) {
        uint64_t columns = PNG_PASS_COLS(width, pass), rows = PNG_PASS_ROWS(height, pass);
        if (columns == 0 || rows == 0) continue;
        total += rows * (1 + (columns * bits + 7) / 8);
    }
    return total;
}

/* Inflates the IDAT run (first .. end, `chunks` chunks, `compressed` bytes) whole into w->raw; 1 when all of it is right. */
static int pc_png_inflate_run(pc_png_state *s, pc_png_whole *w, size_t first, size_t end, size_t chunks,
                              size_t compressed) {
    const uint8_t *d = s->data;
    w->raw = mmap(NULL, w->raw_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (w->raw == MAP_FAILED) { w->raw = NULL; return 0; }
    const uint8_t *in = d + first;
    uint8_t *joined = NULL;
    if (chunks > 1) {
        joined = malloc(compressed);
        if (joined != NULL) {
            size_t at = 0;
            for (size_t p = first - 8; p < end; p += 12 + pc_png_be32(d + p)) {
                memcpy(joined + at, d + p + 8, pc_png_be32(d + p));
                at += pc_png_be32(d + p);
            }
        }
        in = joined;
    }
    struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
    int ok = in != NULL && decompressor != NULL;
    /* RFC 1950 §2.2: CM 8, CINFO 7 (32 KiB window), FDICT 0 (FCHECK libdeflate checks). */
    ok = ok && (in[0] & 0x0F) == 8 && (in[0] >> 4) == 7 && (in[1] & 0x20) == 0;
    if (ok) {
        size_t used = 0, produced = 0;
        enum libdeflate_result r = libdeflate_zlib_decompress_ex(decompressor, in, compressed, w->raw, w->raw_size,
                                                                 &used, &produced);
        ok = r == LIBDEFLATE_SUCCESS && used == compressed && produced == w->raw_size;
    }
    libdeflate_free_decompressor(decompressor);
    free(joined);
    /* The only part of the joined buffer still held is the inflated data. */
    if (chunks > 1) { atomic_fetch_sub(&pc_png_inflate_in_use, compressed); w->reserved -= compressed; }
    return ok;
}

/*
 * Called after png_read_info, which stops having read the first IDAT's length and type
 * (s->position is at its data). Checks the IDAT run (see the top of this file), then inflates
 * it whole with libdeflate when the memory caps allow, or else opens zlib's streaming inflate on
 * it in place, and switches pc_png_read to the re-encoded stream of unfiltered rows. Returns 1
 * when inflated whole, 2 when streamed, 0 when the file is left to libpng as it is (nothing
 * consumed, nothing changed).
 */
static int pc_png_feed_start(pc_png_state *s, png_uint_32 width, png_uint_32 height, int bit_depth,
                             int color_type, int interlace, int never_whole) {
    const uint8_t *d = s->data;
    size_t first = s->position;
    if (first < 16 || first > s->size || memcmp(d + first - 4, "IDAT", 4) != 0) return 0;
    uint64_t implied = pc_png_inflated_size(width, height, bit_depth, color_type, interlace);
    if (implied == 0 || implied > SIZE_MAX / 2) return 0;
    size_t first_length = pc_png_be32(d + first - 8);

    /* The run of consecutive IDAT chunks: within the file, each CRC right (PNG spec §5.3). */
    size_t compressed = 0, chunks = 0, pos = first - 8, end = first - 8;
    while (s->size >= 12 && pos <= s->size - 12 && memcmp(d + pos + 4, "IDAT", 4) == 0) {
        size_t length = pc_png_be32(d + pos);
        if (length > s->size - pos - 12) return 0;
        uint32_t crc = (uint32_t)libdeflate_crc32(0, d + pos + 4, length + 4);
        if (crc != pc_png_be32(d + pos + 8 + length)) return 0;
        compressed += length;
        chunks++;
        pos += 12 + length;
        end = pos;
    }
    if (chunks == 0 || compressed < 6 || implied / PC_PNG_INFLATE_RATIO > compressed) return 0;
    /* RFC 1950 §2.2 on the first two bytes of the run (they may lie in two chunks). */
    uint8_t header[2];
    size_t have = 0;
    for (size_t p = first - 8; p < end && have < 2; p += 12 + pc_png_be32(d + p))
        for (size_t i = 0; i < pc_png_be32(d + p) && have < 2; i++) header[have++] = d[p + 8 + i];
    if (have < 2 || (header[0] & 0x0F) != 8 || (header[0] >> 4) != 7 || (header[1] & 0x20) != 0 ||
        (header[0] * 256u + header[1]) % 31 != 0)
        return 0;

    pc_png_whole *w = calloc(1, sizeof *w);
    if (w == NULL) return 0;
    w->raw_size = (size_t)implied;
    w->width = width;
    w->height = height;
    int channels = color_type == PNG_COLOR_TYPE_RGB ? 3 : color_type == PNG_COLOR_TYPE_RGB_ALPHA ? 4
                 : color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : 1;
    w->bits = (unsigned)(channels * bit_depth);
    w->bpp = w->bits >= 8 ? w->bits / 8 : 1;
    w->interlace = interlace;
    /* The first pass with pixels (the whole image when not interlaced). */
    w->pass = -1;
    if (interlace == PNG_INTERLACE_NONE) {
        w->pass = 0;
        w->rows_left = height;
        w->row_bytes = ((size_t)width * w->bits + 7) / 8;
    }
    w->row_capacity = 1 + ((size_t)width * w->bits + 7) / 8;
    /* Two rows taken in turn (streaming) and a row of zeros, the "previous row" of each pass's first. */
    w->rows = calloc(3, w->row_capacity);
    if (w->rows != NULL) w->prev = w->rows + 2 * w->row_capacity;
    int taken = 0;
    size_t reserve = (size_t)implied + (chunks > 1 ? compressed : 0);
    if (w->rows != NULL && !never_whole && implied <= PC_PNG_INFLATE_MAX) {
        size_t before = atomic_fetch_add(&pc_png_inflate_in_use, reserve);
        if (before + reserve <= PC_PNG_INFLATE_POOL) {
            w->reserved = reserve;
            if (pc_png_inflate_run(s, w, first, end, chunks, compressed)) taken = 1;
            else { pc_png_whole_free(w); return 0; } /* damaged: libpng's verdict */
        } else {
            atomic_fetch_sub(&pc_png_inflate_in_use, reserve);
        }
    }
    if (!taken && w->rows != NULL) {
        w->in = NULL;
        w->in_left = 0;
        w->next_chunk = first - 8;
        w->run_end = end;
        w->buffer_capacity = PC_PNG_FEED_BUFFER + w->row_capacity;
        w->buffer = malloc(w->buffer_capacity);
        w->z = malloc(sizeof *w->z);
        if (w->buffer != NULL && w->z != NULL) {
            isal_inflate_init(w->z);
            w->z->crc_flag = ISAL_ZLIB_NO_HDR_VER;
            w->z->hist_bits = 15;
            /* Past the two header bytes. */
            size_t skip = 2;
            while (skip > 0 && pc_png_feed_input(s, w)) {
                size_t n = skip < w->in_left ? skip : w->in_left;
                w->in += n;
                w->in_left -= n;
                skip -= n;
            }
            taken = skip == 0 ? 2 : 0;
        }
    }
    if (taken == 0) { pc_png_whole_free(w); return 0; }
    w->cur = w->rows; /* empty: the first pc_png_feed_copy makes the first row current */
    w->cur_size = w->cur_at = 0;
    w->head[0] = 0x78; /* CINFO 7, CM 8; FLEVEL 0, FCHECK: 0x7801 % 31 == 0 */
    w->head[1] = 0x01;
    w->head_length = 2;
    size_t blocks = (w->raw_size + PC_PNG_STORED_BLOCK - 1) / PC_PNG_STORED_BLOCK;
    w->stream_size = 2 + w->raw_size + 5 * blocks + 4;
    /* The first chunk's length is declared already: the stored stream must be at least as long. */
    if (w->stream_size < first_length) { pc_png_whole_free(w); return 0; }
    w->chunk_left = first_length;
    /* A first IDAT of length 0 (valid, PNG spec §5.3) has nothing to hand out: its CRC is next. */
    if (first_length == 0) pc_png_end_chunk(w);
    w->suffix = end;
    s->whole = w;
    /* Checked above or while feeding: the IDAT CRCs (ours now stand in for them) and the Adler-32. */
    png_set_crc_action(s->png, PNG_CRC_QUIET_USE, PNG_CRC_DEFAULT);
    png_set_option(s->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    return taken;
}

static void pc_png_copy_exif(pc_png_state *s, pc_decoded *out) {
    png_bytep exif = NULL;
    png_uint_32 length = 0;
    if (out->exif != NULL) return;
    if (png_get_eXIf_1(s->png, s->info, &length, &exif) == 0 || exif == NULL || length == 0) return;
    out->exif = malloc(length);
    if (out->exif == NULL) return;
    memcpy(out->exif, exif, length);
    out->exif_size = length;
}

/*
 * Walks the chunk headers (PNG spec §5.3: length, type, data, CRC) up to IEND and refuses
 * a chunk other than IDAT whose declared length runs past the end of the file, before
 * libpng sees it: libpng would fail on it anyway ("Read Error") after reading (and for
 * some chunks allocating) up to the declared length. IDAT is streamed in small pieces
 * (PNG_IDAT_READ_SIZE): a file cut inside its image data keeps libpng's own message.
 * Sets *large_exif when an eXIf chunk is longer than PC_PNG_EXIF_MAX.
 * Returns 0 and sets the error when refused.
 */
static int pc_png_chunks_fit(const uint8_t *d, size_t size, pc_messages *messages, int *large_exif) {
    size_t pos = 8;
    while (size >= 12 && pos <= size - 12) {
        uint32_t length = (uint32_t)d[pos] << 24 | (uint32_t)d[pos + 1] << 16 | (uint32_t)d[pos + 2] << 8 | d[pos + 3];
        const uint8_t *type = d + pos + 4;
        if (memcmp(type, "IEND", 4) == 0) return 1;
        for (int i = 0; i < 4; i++) {
            int letter = (type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z');
            if (!letter) return 1; /* not a chunk (PNG spec §5.4): libpng stops here or earlier, with its own message */
        }
        if (length > size - pos - 12 && memcmp(type, "IDAT", 4) != 0) {
            char text[PC_MESSAGE_CAPACITY];
            char name[5];
            memcpy(name, type, 4);
            name[4] = '\0';
            snprintf(text, sizeof text, "PNG chunk %s declares %lu bytes but only %lu follow in the file",
                     name, (unsigned long)length, (unsigned long)(size - pos - 12));
            pc_set_error(messages, text);
            return 0;
        }
        if (length > size - pos - 12) return 1; /* IDAT past the end: libpng says so */
        if (memcmp(type, "eXIf", 4) == 0 && length > PC_PNG_EXIF_MAX) *large_exif = 1;
        pos += 12 + (size_t)length;
    }
    return 1; /* no IEND: libpng says how it ends */
}

/* One decode; `plain`: the image data through libpng alone. Sets *retry when the fed image data was damaged. */
static pc_status pc_png_decode_once(const uint8_t *data, size_t size, const pc_decode_options *options,
                                    pc_decoded *out, pc_messages *messages, int plain, int *retry) {
    memset(out, 0, sizeof *out);
    if (data == NULL || size < 8) { pc_set_error(messages, "not a PNG file"); return PC_CORRUPT; }
    int large_exif = 0;
    if (!pc_png_chunks_fit(data, size, messages, &large_exif)) return PC_CORRUPT;
    pc_png_state *s = calloc(1, sizeof *s);
    if (s == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    pc_status status = PC_OK;
    s->data = data;
    s->size = size;
    s->messages = messages;

    s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, pc_png_error, pc_png_warning);
    if (s->png == NULL) { pc_set_error(messages, "out of memory"); free(s); return PC_NO_MEMORY; }
    s->info = png_create_info_struct(s->png);
    if (s->info == NULL) {
        png_destroy_read_struct(&s->png, NULL, NULL);
        pc_set_error(messages, "out of memory");
        free(s);
        return PC_NO_MEMORY;
    }
    if (setjmp(png_jmpbuf(s->png))) {
        status = PC_CORRUPT;
        goto done;
    }
    png_set_read_fn(s->png, s, pc_png_read);
    /* Memory bounded by the bytes given, never by sizes they declare (SPEC §6 "Limits"). */
    png_set_user_limits(s->png, PC_PNG_MAX_EDGE, PC_PNG_MAX_EDGE);
    png_set_chunk_malloc_max(s->png, PC_PNG_CHUNK_MAX);
    png_set_chunk_cache_max(s->png, PC_PNG_CHUNK_CACHE);
    /* Text, suggested palettes and unknown chunks are never used here: skipped unread
     * (libpng-manual.txt png_set_keep_unknown_chunks, "known chunks ... treated as unknown"). */
    static const png_byte ignored[] = { 't', 'E', 'X', 't', '\0', 'z', 'T', 'X', 't', '\0',
                                        'i', 'T', 'X', 't', '\0', 's', 'P', 'L', 'T', '\0' };
    png_set_keep_unknown_chunks(s->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(s->png, PNG_HANDLE_CHUNK_NEVER, ignored, (int)(sizeof ignored / 5));
    if (large_exif) {
        static const png_byte exif[] = { 'e', 'X', 'I', 'f', '\0' };
        png_set_keep_unknown_chunks(s->png, PNG_HANDLE_CHUNK_NEVER, exif, 1);
        pc_add_warning(messages, "eXIf chunk over 1 MiB skipped: EXIF fields not read");
    }
    png_read_info(s->png, s->info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(s->png, s->info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    out->stored_width = (int)width;
    out->stored_height = (int)height;
    out->progressive = interlace != PNG_INTERLACE_NONE;
    if ((uint64_t)width * height > options->max_pixels) {
        status = PC_TOO_LARGE;
        goto done;
    }
    pc_png_copy_exif(s, out);

    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(s->png);
    if (png_get_valid(s->png, s->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(s->png);
    png_set_scale_16(s->png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(s->png);
    /*
     * Colour (PNG spec §11.3.3.1: iCCP takes precedence over gAMA/cHRM; sRGB means sRGB): an iCCP
     * profile is applied with Little CMS on the reduced image; cHRM + gAMA whose primaries are not
     * sRGB's make a matrix/TRC profile for the same; otherwise libpng-manual.txt "Gamma": decode to
     * an sRGB display only when the file states its gamma (gAMA, or sRGB which implies it).
     */
    png_charp icc_name = NULL;
    png_bytep icc = NULL;
    png_uint_32 icc_size = 0;
    int icc_compression = 0;
    int has_icc = !options->ignore_icc && png_get_iCCP(s->png, s->info, &icc_name, &icc_compression, &icc, &icc_size) != 0 && icc != NULL && icc_size > 0;
    int has_srgb = png_get_valid(s->png, s->info, PNG_INFO_sRGB) != 0;
    double file_gamma = 0;
    int has_gamma = png_get_gAMA(s->png, s->info, &file_gamma) && file_gamma > 0;
    double wx = 0, wy = 0, chrm[6] = { 0 };
    int use_chrm = !options->ignore_icc && !has_icc && !has_srgb && has_gamma &&
                   png_get_cHRM(s->png, s->info, &wx, &wy, &chrm[0], &chrm[1], &chrm[2], &chrm[3], &chrm[4], &chrm[5]) != 0;
    if (use_chrm) {
        /* sRGB's own chromaticities (IEC 61966-2-1) within 0.005 keep libpng's gamma path (as color.c). */
        static const double srgb[8] = { 0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06 };
        const double got[8] = { wx, wy, chrm[0], chrm[1], chrm[2], chrm[3], chrm[4], chrm[5] };
        int same = 1;
        for (int i = 0; i < 8; i++) if (got[i] < srgb[i] - 0.005 || got[i] > srgb[i] + 0.005) same = 0;
        if (same) use_chrm = 0;
    }
    if (has_icc) {
        s->icc = malloc(icc_size);
        if (s->icc != NULL) { memcpy(s->icc, icc, icc_size); s->icc_size = icc_size; }
    } else if (!use_chrm && has_gamma) {
        png_set_gamma(s->png, PNG_DEFAULT_sRGB, file_gamma);
    }
    /* No png_set_interlace_handling: Adam7 rows come pass by pass and go straight into the reduction. */
    /* Before png_read_update_info, which starts libpng's inflate (png_read_start_row). */
    if (!plain) {
        int fed = pc_png_feed_start(s, width, height, bit_depth, color_type, interlace, options->png_never_whole);
        out->png_whole_inflate = fed == 1;
        out->png_fed_rows = fed != 0;
    }
    png_read_update_info(s->png, s->info);

    int channels = png_get_channels(s->png, s->info);
    size_t rowbytes = png_get_rowbytes(s->png, s->info);
    if (channels != 3 && channels != 4) png_error(s->png, "unexpected channel count after transforms");
    unsigned long_edge = width > height ? width : height;
    int factor = options->target_edge > 0 ? (int)(long_edge / (unsigned)options->target_edge) : 1;
    if (factor < 1) factor = 1;
    int adam7 = interlace != PNG_INTERLACE_NONE;
    int ok = adam7 ? pc_box_init_grid(&s->box, (int)width, (int)height, channels, factor)
                   : pc_box_init(&s->box, (int)width, (int)height, channels, factor);
    s->row = ok ? malloc(rowbytes) : NULL;
    if (s->row == NULL) {
        pc_set_error(messages, "out of memory");
        status = PC_NO_MEMORY;
        goto done;
    }

    if (!adam7) {
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(s->png, s->row, NULL);
            pc_box_add_row(&s->box, s->row);
        }
    } else {
        /* PNG spec §8.2: pass p holds pixels (PNG_COL_FROM_PASS_COL, PNG_ROW_FROM_PASS_ROW); libpng skips empty passes. */
        for (int pass = 0; pass < 7; pass++) {
            png_uint_32 columns = PNG_PASS_COLS(width, pass), rows = PNG_PASS_ROWS(height, pass);
            if (columns == 0 || rows == 0) continue;
            for (png_uint_32 r = 0; r < rows; r++) {
                png_read_row(s->png, s->row, NULL);
                pc_box_add_pixels(&s->box, s->row, (int)columns, (int)PNG_ROW_FROM_PASS_ROW(r, pass),
                                  (int)PNG_PASS_START_COL(pass), 1 << PNG_PASS_COL_SHIFT(pass));
            }
        }
        pc_box_finish(&s->box);
    }
    /* The chunks after the image data are libpng's to check again (pc_png_feed_start). */
    if (s->whole != NULL) {
        png_set_crc_action(s->png, PNG_CRC_DEFAULT, PNG_CRC_DEFAULT);
        png_set_option(s->png, PNG_IGNORE_ADLER32, PNG_OPTION_OFF);
    }
    png_read_end(s->png, s->info); /* checks the trailing chunks' CRCs and IEND */
    pc_png_copy_exif(s, out);

    out->pixels = s->box.out;
    s->box.out = NULL;
    out->width = s->box.out_width;
    out->height = s->box.out_height;
    out->scale = factor;
    size_t count = (size_t)out->width * (size_t)out->height;
    int gray = color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA;
    if (s->icc != NULL)
        (void)pc_color_apply_icc(s->icc, s->icc_size, gray ? PC_LAYOUT_GRAY_IN_RGB : PC_LAYOUT_RGB,
                                 out->pixels, out->pixels, count, messages);
    else if (use_chrm)
        (void)pc_color_apply_chrm(wx, wy, chrm, file_gamma, out->pixels, count, messages);

done:
    png_destroy_read_struct(&s->png, &s->info, NULL);
    pc_box_free(&s->box);
    free(s->box.out);
    free(s->row);
    free(s->icc);
    pc_png_whole_free(s->whole);
    if (status != PC_OK) {
        free(out->exif);
        out->exif = NULL;
        out->exif_size = 0;
    }
    *retry = s->retry;
    free(s);
    return status;
}

pc_status pc_png_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                        pc_decoded *out, pc_messages *messages) {
    int retry = 0;
    if (options->png_streaming_inflate) return pc_png_decode_once(data, size, options, out, messages, 1, &retry);
    /* A damaged stream is found only while it is fed (streaming): then libpng alone decodes the
     * file again from the start, for its own verdict and messages (those of the first try dropped). */
    pc_messages before = *messages;
    pc_status status = pc_png_decode_once(data, size, options, out, messages, 0, &retry);
    if (!retry) return status;
    *messages = before;
    return pc_png_decode_once(data, size, options, out, messages, 1, &retry);
}
