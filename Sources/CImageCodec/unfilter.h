#ifndef PHOTOS_CIMAGECODEC_UNFILTER_H
#define PHOTOS_CIMAGECODEC_UNFILTER_H
#include <stddef.h>
#include <stdint.h>

/*
 * Reverses one PNG row filter in place (PNG spec §9.2-§9.4: 0 None, 1 Sub, 2 Up, 3 Average,
 * 4 Paeth): row holds n filtered bytes, prev the previous row of the same pass already
 * unfiltered (zeros for a pass's first row), bpp the bytes per complete pixel, at least 1.
 * Same bytes as libpng's png_read_filter_row. Returns 0 (row unchanged) for a type over 4.
 */
int pc_unfilter_row(int type, uint8_t *row, const uint8_t *prev, size_t n, size_t bpp);
#endif
