/* Progressive JPEG encoding with libjpeg, so tests can build inputs for dconly.c without tools or files. */
#include <stdio.h> /* before jpeglib.h: it uses FILE and size_t (libjpeg.txt) */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include "CImageCodec.h"
#include "messages.h"

typedef struct pc_progressive_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    pc_messages *messages;
} pc_progressive_error;

static void pc_progressive_error_exit(j_common_ptr cinfo) {
    pc_progressive_error *err = (pc_progressive_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    pc_set_error(err->messages, text);
    longjmp(err->jump, 1);
}

static void pc_progressive_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* State that must survive a longjmp lives behind a pointer, never in registers. */
typedef struct pc_progressive_state {
    struct jpeg_compress_struct cinfo;
    pc_progressive_error err;
    jpeg_scan_info scans[10];
    unsigned char *buffer;
    unsigned long buffer_size;
    int created;
} pc_progressive_state;

static jpeg_scan_info pc_scan(int component, int ss, int se, int ah, int al) {
    jpeg_scan_info scan;
    memset(&scan, 0, sizeof scan);
    scan.comps_in_scan = 1;
    scan.component_index[0] = component;
    scan.Ss = ss;
    scan.Se = se;
    scan.Ah = ah;
    scan.Al = al;
    return scan;
}

/*
 * Script 1: non-interleaved DC scans (T.81 G.1.1.1.1 allows one component per DC scan), an AC
 * scan of luma before the chroma DC scans, and the DC refinement (successive approximation)
 * scans after all AC scans.
 */
static int pc_non_interleaved_script(jpeg_scan_info *scans, int components) {
    int n = 0;
    scans[n++] = pc_scan(0, 0, 0, 0, 1);
    scans[n++] = pc_scan(0, 1, 63, 0, 0);
    for (int c = 1; c < components; c++) scans[n++] = pc_scan(c, 0, 0, 0, 1);
    for (int c = 1; c < components; c++) scans[n++] = pc_scan(c, 1, 63, 0, 0);
    for (int c = 0; c < components; c++) scans[n++] = pc_scan(c, 0, 0, 1, 0);
    return n;
}

pc_status pc_jpeg_encode_progressive(const uint8_t *pixels, int width, int height, int components,
                                     int h_samp, int v_samp, int quality, int restart_interval, int script,
                                     uint8_t **out, size_t *out_size, pc_messages *messages) {
    *out = NULL;
    *out_size = 0;
    if ((components != 1 && components != 3) || width < 1 || height < 1 || h_samp < 1 || h_samp > 4 ||
        v_samp < 1 || v_samp > 4 || restart_interval < 0 || restart_interval > 65535) {
        pc_set_error(messages, "bad progressive encode parameters");
        return PC_UNSUPPORTED;
    }
    pc_progressive_state *s = calloc(1, sizeof *s);
    if (s == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    struct jpeg_compress_struct *cinfo = &s->cinfo;
    pc_status status = PC_OK;

    jpeg_std_error(&s->err.pub);
    s->err.pub.error_exit = pc_progressive_error_exit;
    s->err.pub.output_message = pc_progressive_output_message;
    s->err.messages = messages;
    cinfo->err = &s->err.pub;
    if (setjmp(s->err.jump)) {
        status = PC_CORRUPT;
        goto done;
    }
    jpeg_create_compress(cinfo);
    s->created = 1;
    jpeg_mem_dest(cinfo, &s->buffer, &s->buffer_size);
    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->input_components = components;
    cinfo->in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    cinfo->comp_info[0].h_samp_factor = h_samp;
    cinfo->comp_info[0].v_samp_factor = v_samp;
    for (int c = 1; c < components; c++) {
        cinfo->comp_info[c].h_samp_factor = 1;
        cinfo->comp_info[c].v_samp_factor = 1;
    }
    cinfo->restart_interval = (unsigned)restart_interval;
    if (script == 1) {
        cinfo->scan_info = s->scans;
        cinfo->num_scans = pc_non_interleaved_script(s->scans, components);
    } else {
        jpeg_simple_progression(cinfo);
    }
    jpeg_start_compress(cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo->next_scanline < cinfo->image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo->next_scanline);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo);
    *out = s->buffer;
    *out_size = s->buffer_size;
    s->buffer = NULL;

done:
    if (s->created) jpeg_destroy_compress(cinfo);
    free(s->buffer);
    free(s);
    return status;
}
