#ifndef PC_HEIFCHECK_H
#define PC_HEIFCHECK_H
#include <stddef.h>
#include <stdint.h>
#include "CImageCodec.h"

/*
 * Walks a HEIF/AVIF file's item structure (ISO/IEC 14496-12 §8.11 meta box, ISO/IEC 23008-12
 * image items) before libheif is handed it, and refuses what crashes libheif 1.15 or would make
 * it allocate by sizes the coded streams do not have (issue 31 B14, B15):
 *   - boxes whose length runs past their parent, a missing or unknown primary item (pitm),
 *     items given twice (iinf/infe), data extents outside the file or idat (iloc);
 *   - item references (iref: dimg, thmb, auxl, ...) from an item to itself, to items that do
 *     not exist, cycles among them, or chains deeper than PC_HEIF_MAX_DERIVATION;
 *   - grid items (ISO/IEC 23008-12 §6.6.2.3) whose ImageGrid payload is short, whose tile
 *     count is not rows × columns, whose tiles are missing, not coded (a grid of grids) or not
 *     all one size, whose output is larger than rows × columns tiles or differs from its ispe;
 *     overlays (iovl, §6.6.2.4) likewise; identity-derived items (iden) with other than one
 *     source;
 *   - coded items (hvc1, av01) without ispe, or whose coded stream's own size differs from it:
 *     the HEVC SPS's pic_width/height_in_luma_samples less the conformance window (ITU-T H.265
 *     §7.3.2.2.1) of every SPS in hvcC (ISO/IEC 14496-15 §8.3.3.1) and in the item's data, the
 *     AV1 sequence header's max_frame_width/height_minus_1 + 1 (AV1 §5.5.1) of every one in
 *     av1C (AV1-ISOBMFF §2.3.3) and in the item's data; an alpha auxiliary image (auxC alpha
 *     URN) of another size than its master;
 *   - any image item of more than max_pixels pixels.
 * Every read is checked against the bytes given; memory is bounded by them (arrays sized by the
 * boxes present, never by a count a box declares). Returns PC_OK, or PC_CORRUPT /
 * PC_UNSUPPORTED / PC_NO_MEMORY / PC_TOO_LARGE with the reason in m->error; for PC_TOO_LARGE
 * the size of the image item over the limit in *width and *height.
 */
pc_status pc_heif_check(const uint8_t *data, size_t size, uint64_t max_pixels, uint32_t *width, uint32_t *height,
                        pc_messages *m);

/* The longest chain of derivations followed (a grid of tiles is 1, an iden of a grid 2). */
#define PC_HEIF_MAX_DERIVATION 4

#endif
