/*
 * The fence around our copies of libjpeg-turbo (issue 30 item 6). dconly.c's reduced decoders
 * and thumbjpeg.c's encoder give libjpeg-turbo's own pixels, files and verdicts bit for bit, but
 * only for the libjpeg-turbo they were compared with: its IDCTs, upsampling, colour conversion,
 * Huffman table builder and warning rules are copied, not asked for. They run only when
 *
 * 1. the linked libjpeg-turbo is a checked version: the library's own version text
 *    ("libjpeg-turbo version 2.1.5 (build 20230203)", in every libjpeg-turbo since 1.x; its
 *    libjpeg 6.2 ABI has no call that returns it, and LIBJPEG_TURBO_VERSION_NUMBER is the
 *    version compiled against, not the one loaded) is looked up in the read-only segments of
 *    the loaded libjpeg.so (dl_iterate_phdr) and must be one of pc_jpeg_checked_versions; and
 * 2. a probe gives the same answers both ways: a 32x16 test image encoded by thumbjpeg.c and by
 *    libjpeg (the same bytes), that file decoded at 1/8 and 2/8 and a truncated copy, a 4:2:2
 *    restart-interval file at 2/8 (fancy upsampling) and a progressive 4:4:4 file at 1/8
 *    (DC-only), each by our decoder and by libjpeg (the same pixels, status and message); and
 * 3. PHOTOS_JPEG_CLONE is not "off" (and pc_jpeg_clone_force, for tests, does not say otherwise).
 *
 * Otherwise libjpeg does all the work: the same verdicts, as dconly.c returns libjpeg's; pixels
 * equal wherever the clone's are (a progressive 4:2:0 file at 1/8 gets libjpeg's upsampled chroma
 * instead of the DC-only decoder's, within 2 levels on 120-px thumbnails), and progressive files
 * pay libjpeg's whole-image coefficient buffer (over the budget for some: PC_OVER_BUDGET).
 * Checked once per process, on the first JPEG decode or encode; measured 0.2 ms (PhotosImagingTests
 * JPEGCloneFenceTests prints it).
 *
 * Checked versions: libjpeg-turbo 2.1.5 (Debian 12 libjpeg62-turbo 1:2.1.5-2; Debian 13 ships
 * 2.1.5 too). Adding one: run the decoder and encoder tests and the fuzz harnesses
 * (Tests/Fuzz/README.md) against it, then list it here.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "jpegclone.h"

static const char *const pc_jpeg_checked_versions[] = { "2.1.5" };

static pthread_once_t pc_clone_once = PTHREAD_ONCE_INIT;
static int pc_clone_checked;            /* the check's answer */
static char pc_clone_reason[PC_MESSAGE_CAPACITY];
static char pc_clone_version[32];
static _Atomic int pc_clone_forced = -1; /* pc_jpeg_clone_force */

/* dl_iterate_phdr: the version text in the loaded libjpeg.so's read-only segments. */
static int pc_find_version(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *name = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    name = name ? name + 1 : info->dlpi_name;
    if (name == NULL || strncmp(name, "libjpeg.so", 10) != 0) return 0;
    static const char key[] = "libjpeg-turbo version ";
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_R) || (p->p_flags & (PF_W | PF_X))) continue; /* read-only data */
        const char *start = (const char *)(info->dlpi_addr + p->p_vaddr);
        const char *hit = memmem(start, p->p_filesz, key, sizeof key - 1);
        if (hit == NULL) continue;
        const char *v = hit + sizeof key - 1, *end = start + p->p_filesz;
        size_t n = 0;
        while (v + n < end && n < 31 && ((v[n] >= '0' && v[n] <= '9') || v[n] == '.')) n++;
        memcpy(data, v, n);
        ((char *)data)[n] = '\0';
        return 1;
    }
    return 0;
}

/* Frees both results' buffers and says whether they are the same decode. */
static int pc_same_decode(pc_status sa, pc_decoded *a, const pc_messages *ma, pc_status sb, pc_decoded *b,
                          const pc_messages *mb) {
    int same = sa == sb && strcmp(ma->error, mb->error) == 0;
    if (same && sa == PC_OK)
        same = a->width == b->width && a->height == b->height && a->pixels && b->pixels &&
               memcmp(a->pixels, b->pixels, (size_t)a->width * (size_t)a->height * 3) == 0;
    pc_free(a->pixels);
    pc_free(b->pixels);
    return same;
}

/* One file decoded by our decoder (which must take it: `used` says how) and by libjpeg. */
static int pc_probe_decode(const uint8_t *jpeg, size_t size, int target, int progressive) {
    pc_decode_options o;
    memset(&o, 0, sizeof o);
    o.target_edge = target;
    o.max_pixels = 100000000;
    o.fancy_upsampling = 1;
    o.ignore_icc = 1;
    o.progressive_dc_only = progressive;
    o.sequential_reduced = !progressive;
    pc_decoded a, b;
    pc_messages ma, mb;
    memset(&ma, 0, sizeof ma);
    memset(&mb, 0, sizeof mb);
    pc_status sa = pc_jpeg_decode_with(jpeg, size, &o, 1, &a, &ma);
    int used = progressive ? a.used_dc_only : a.used_reduced;
    pc_status sb = pc_jpeg_decode_with(jpeg, size, &o, 0, &b, &mb);
    return pc_same_decode(sa, &a, &ma, sb, &b, &mb) && (sa != PC_OK || used);
}

/* The probe's test image: W x H RGB with edges and texture, so that every block has AC coefficients. */
enum { PC_PROBE_W = 32, PC_PROBE_H = 16 };
void pc_jpeg_probe_image(uint8_t *rgb) {
    for (int y = 0; y < PC_PROBE_H; y++)
        for (int x = 0; x < PC_PROBE_W; x++) {
            uint8_t *p = rgb + (y * PC_PROBE_W + x) * 3;
            p[0] = (uint8_t)(x * 5 + y * 3);
            p[1] = (uint8_t)((x ^ y) * 7 + 40);
            p[2] = (uint8_t)(x * y + (x & 4 ? 90 : 0));
        }
}

/*
 * The probe image as libjpeg-turbo 2.1.5 encodes it (pc_jpeg_encode_ex, quality 90): 4:2:2 with a
 * restart interval of 2 MCUs, and progressive 4:4:4 (jpeg_simple_progression). Kept as bytes, not
 * encoded at each start (a progressive encode alone took 0.3 ms): only their decodes are compared.
 * Made by Tests/Fuzz/probe_files.c.
 */
#include "jpegclone_files.h"

/* The probe (point 2 above); NULL when everything matched, else what differed. */
static const char *pc_probe(void) {
    static uint8_t rgb[PC_PROBE_W * PC_PROBE_H * 3];
    pc_jpeg_probe_image(rgb);
    const char *failed = NULL;
    pc_messages m;
    memset(&m, 0, sizeof m);
    uint8_t *ours = NULL, *theirs = NULL;
    size_t ours_n = 0, theirs_n = 0;
    if (pc_thumbnail_jpeg_encode(rgb, PC_PROBE_W, PC_PROBE_H, 85, &ours, &ours_n, &m) != PC_OK ||
        pc_jpeg_encode_libjpeg(rgb, PC_PROBE_W, PC_PROBE_H, 85, &theirs, &theirs_n, &m) != PC_OK) {
        failed = "a probe encode failed";
    } else if (ours_n != theirs_n || memcmp(ours, theirs, ours_n) != 0) {
        failed = "the thumbnail encoder wrote other bytes";
    } else if (!pc_probe_decode(theirs, theirs_n, PC_PROBE_W / 8, 0)) {
        failed = "the reduced decoder at 1/8 gave other pixels";
    } else if (!pc_probe_decode(theirs, theirs_n, PC_PROBE_W / 4, 0)) {
        failed = "the reduced decoder at 2/8 gave other pixels";
    } else if (!pc_probe_decode(theirs, theirs_n * 2 / 3, PC_PROBE_W / 4, 0)) {
        failed = "the reduced decoder judged a truncated file otherwise";
    } else if (!pc_probe_decode(pc_probe_422, sizeof pc_probe_422, PC_PROBE_W / 4, 0)) {
        failed = "the reduced decoder gave other 4:2:2 pixels";
    } else if (!pc_probe_decode(pc_probe_progressive, sizeof pc_probe_progressive, PC_PROBE_W / 8, 1)) {
        failed = "the DC-only decoder gave other pixels";
    }
    pc_free(ours);
    pc_free(theirs);
    return failed;
}

static void pc_clone_check(void) {
    (void)dl_iterate_phdr(pc_find_version, pc_clone_version);
    const char *env = getenv("PHOTOS_JPEG_CLONE");
    if (env != NULL && strcmp(env, "off") == 0) {
        snprintf(pc_clone_reason, sizeof pc_clone_reason, "off (PHOTOS_JPEG_CLONE=off)");
        return;
    }
    int checked = 0;
    for (size_t i = 0; i < sizeof pc_jpeg_checked_versions / sizeof *pc_jpeg_checked_versions; i++)
        if (strcmp(pc_clone_version, pc_jpeg_checked_versions[i]) == 0) checked = 1;
    if (!checked) {
        snprintf(pc_clone_reason, sizeof pc_clone_reason, "off (linked libjpeg-turbo %s is not a checked version: 2.1.5)",
                 pc_clone_version[0] ? pc_clone_version : "of unknown version");
        return;
    }
    const char *failed = pc_probe();
    if (failed != NULL) {
        snprintf(pc_clone_reason, sizeof pc_clone_reason, "off (libjpeg-turbo %s: the probe failed: %s)", pc_clone_version, failed);
        return;
    }
    pc_clone_checked = 1;
    snprintf(pc_clone_reason, sizeof pc_clone_reason, "on (libjpeg-turbo %s, a checked version; the probe matched)",
             pc_clone_version);
}

int pc_jpeg_clone_active(void) {
    int forced = atomic_load_explicit(&pc_clone_forced, memory_order_relaxed);
    if (forced >= 0) return forced;
    pthread_once(&pc_clone_once, pc_clone_check);
    return pc_clone_checked;
}

const char *pc_jpeg_linked_version(void) {
    pthread_once(&pc_clone_once, pc_clone_check);
    return pc_clone_version;
}

int pc_jpeg_clone_state(char *reason, size_t capacity) {
    int active = pc_jpeg_clone_active();
    if (reason != NULL && capacity > 0) {
        int forced = atomic_load_explicit(&pc_clone_forced, memory_order_relaxed);
        if (forced >= 0) snprintf(reason, capacity, "%s (forced by a test)", forced ? "on" : "off");
        else snprintf(reason, capacity, "%s", pc_clone_reason);
    }
    return active;
}

int pc_jpeg_clone_force(int mode) {
    return atomic_exchange(&pc_clone_forced, mode < 0 ? -1 : mode ? 1 : 0);
}
