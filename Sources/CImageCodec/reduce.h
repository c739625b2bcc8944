#ifndef PHOTOS_CIMAGECODEC_REDUCE_H
#define PHOTOS_CIMAGECODEC_REDUCE_H
/*
 * Integer box reduction of 8-bit rows, fed one row at a time, so a large PNG
 * never needs a full-size buffer. Alpha (4 channels) is flattened onto white
 * per source pixel before averaging.
 */
#include <stdint.h>

typedef struct pc_box {
    int factor;          /* source pixels per output pixel on each axis */
    int in_width, in_height, channels;
    int out_width, out_height;
    int rows_in_band, out_row;
    uint32_t *sums;      /* out_width * 3 */
    int stride;          /* values per source column in `columns`: 3, or 4 for RGBA (the 4th unused) */
    uint32_t *columns;   /* in_width * stride: the current band's sums per source column (row path) */
    uint8_t *out;        /* out_width * out_height * 3 */
} pc_box;

/* Allocates sums and out; returns 0 when out of memory (whatever was allocated stays in box for pc_box_free). */
int pc_box_init(pc_box *box, int in_width, int in_height, int channels, int factor);
void pc_box_add_row(pc_box *box, const uint8_t *row);
void pc_box_free(pc_box *box);

/*
 * The same box reduction for pixels that arrive in any order (Adam7 passes, PNG spec
 * §8.2): sums for the whole reduced image (out_width × out_height × 3, small by
 * construction) instead of a full-size 8-bit image. pc_box_finish gives exactly what
 * pc_box_add_row would have for the same pixels.
 */
int pc_box_init_grid(pc_box *box, int in_width, int in_height, int channels, int factor);
/* Adds `count` pixels of one source row y at x = x0, x0 + dx, ... (channels as at init). */
void pc_box_add_pixels(pc_box *box, const uint8_t *pixels, int count, int y, int x0, int dx);
/* Writes the averages into box->out; the grid sums are released by pc_box_free. */
void pc_box_finish(pc_box *box);
#endif
