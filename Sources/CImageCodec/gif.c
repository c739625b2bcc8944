/*
 * GIF decoding with giflib (gif_lib.h, giflib 5 "DGifOpen", "DGifGetRecordType", "DGifGetLine"):
 * the file is read from the caller's buffer through DGifOpen's input function, record by record,
 * and only the first image is decoded (never DGifSlurp, which decodes every frame of an
 * animation into memory). giflib reports failures as error codes (GifErrorString); nothing is
 * printed and no setjmp is needed.
 *
 * The picture is the first frame placed on the logical screen (GIF89a §18 "Logical Screen
 * Descriptor", §20 "Image Descriptor"): the screen's size is the photo's size; screen pixels
 * the frame does not cover take the background colour (§18, the global colour table's entry
 * SBackGroundColor; white without a global table); the frame's transparent pixels (§23
 * "Graphic Control Extension", transparent colour index) are flattened onto white, as PNG and
 * WebP alpha is. A frame reaching past the screen is clipped; a screen of 0 width or height
 * takes the frame's extent. Interlaced frames (§20, rows in 4 passes) and plain ones alike go
 * row by row into the any-order box reducer (reduce.c pc_box_init_grid): memory is one screen
 * row plus the reduced image, whatever the screen's size.
 */
#include <stdio.h>
#include <string.h>
#include <gif_lib.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "messages.h"
#include "reduce.h"

/* Frames after the first walked for the file's structure, at most. */
#define PC_GIF_MAX_FRAMES 10000

typedef struct pc_gif_source {
    const uint8_t *data;
    size_t size, position;
} pc_gif_source;

static int pc_gif_read(GifFileType *gif, GifByteType *buffer, int length) {
    pc_gif_source *s = gif->UserData;
    if (length <= 0 || s->position >= s->size) return 0;
    size_t n = (size_t)length;
    if (n > s->size - s->position) n = s->size - s->position;
    memcpy(buffer, s->data + s->position, n);
    s->position += n;
    return (int)n;
}

static pc_status pc_gif_fail(int code, pc_messages *m) {
    char text[PC_MESSAGE_CAPACITY];
    const char *reason = GifErrorString(code);
    snprintf(text, sizeof text, "GIF file refused by giflib: %s", reason != NULL ? reason : "unknown error");
    pc_set_error(m, text);
    return code == D_GIF_ERR_NOT_ENOUGH_MEM ? PC_NO_MEMORY : PC_CORRUPT;
}

pc_status pc_gif_decode(const uint8_t *data, size_t size, const pc_decode_options *options, pc_decoded *out,
                        pc_messages *messages) {
    memset(out, 0, sizeof *out);
    if (data == NULL || size < 13) { pc_set_error(messages, "GIF file is truncated (under 13 bytes)"); return PC_CORRUPT; }
    pc_gif_source s = {data, size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&s, pc_gif_read, &error);
    if (gif == NULL) return pc_gif_fail(error, messages);
    pc_status status = PC_OK;
    int transparent = -1;
    int done = 0;
    uint8_t *line = NULL, *row = NULL, *covered = NULL;
    pc_box box;
    memset(&box, 0, sizeof box);
    while (!done && status == PC_OK) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
        if (type == TERMINATE_RECORD_TYPE) {
            pc_set_error(messages, "GIF file has no image (giflib met the trailer first)");
            status = PC_CORRUPT;
            break;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *ext = NULL;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
            /* Graphic Control Extension: packed flags, delay (2 bytes), transparent index. */
            if (code == GRAPHICS_EXT_FUNC_CODE && ext != NULL && ext[0] >= 4)
                transparent = (ext[1] & 1) ? ext[4] : -1;
            while (ext != NULL) {
                if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
            }
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
        GifImageDesc *frame = &gif->Image;
        const ColorMapObject *map = frame->ColorMap != NULL ? frame->ColorMap : gif->SColorMap;
        if (map == NULL || map->Colors == NULL) {
            pc_set_error(messages, "GIF frame has neither a local nor a global colour table");
            status = PC_CORRUPT;
            break;
        }
        int fw = frame->Width, fh = frame->Height, left = frame->Left, top = frame->Top;
        if (fw <= 0 || fh <= 0) { pc_set_error(messages, "GIF frame has no pixels (width or height 0)"); status = PC_CORRUPT; break; }
        int cw = gif->SWidth, ch = gif->SHeight;
        if (cw <= 0 || ch <= 0) { cw = left + fw; ch = top + fh; }
        out->stored_width = cw;
        out->stored_height = ch;
        if ((uint64_t)cw * (uint64_t)ch > options->max_pixels || (uint64_t)fw * (uint64_t)fh > options->max_pixels) {
            status = PC_TOO_LARGE;
            break;
        }
        uint8_t background[3] = {255, 255, 255};
        if (gif->SColorMap != NULL && gif->SBackGroundColor < gif->SColorMap->ColorCount) {
            const GifColorType *c = &gif->SColorMap->Colors[gif->SBackGroundColor];
            background[0] = c->Red; background[1] = c->Green; background[2] = c->Blue;
        }
        int long_edge = cw > ch ? cw : ch;
        int factor = options->target_edge > 0 ? long_edge / options->target_edge : 1;
        if (factor < 1) factor = 1;
        line = malloc((size_t)fw);
        row = malloc((size_t)cw * 3);
        covered = calloc((size_t)ch, 1);
        if (line == NULL || row == NULL || covered == NULL || !pc_box_init_grid(&box, cw, ch, 3, factor)) {
            pc_set_error(messages, "out of memory");
            status = PC_NO_MEMORY;
            break;
        }
        /* Rows in file order: 0, 8, 16…, then 4, 12…, 2, 6…, 1, 3… when interlaced (GIF89a Appendix E). */
        static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
        int passes = frame->Interlace ? 4 : 1;
        for (int pass = 0; pass < passes && status == PC_OK; pass++) {
            int start = frame->Interlace ? starts[pass] : 0, step = frame->Interlace ? steps[pass] : 1;
            for (int fy = start; fy < fh; fy += step) {
                if (DGifGetLine(gif, line, fw) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
                int y = top + fy;
                if (y >= ch) continue;
                for (int x = 0; x < cw; x++) memcpy(row + x * 3, background, 3);
                for (int fx = 0; fx < fw; fx++) {
                    int x = left + fx;
                    if (x >= cw) break;
                    int index = line[fx];
                    uint8_t *p = row + x * 3;
                    if (index == transparent) { p[0] = p[1] = p[2] = 255; continue; }
                    if (index >= map->ColorCount) continue; /* out of the table: the background */
                    p[0] = map->Colors[index].Red; p[1] = map->Colors[index].Green; p[2] = map->Colors[index].Blue;
                }
                pc_box_add_pixels(&box, row, cw, y, 0, 1);
                covered[y] = 1;
            }
        }
        if (status != PC_OK) break;
        for (int x = 0; x < cw; x++) memcpy(row + x * 3, background, 3);
        for (int y = 0; y < ch; y++)
            if (!covered[y]) pc_box_add_pixels(&box, row, cw, y, 0, 1);
        pc_box_finish(&box);
        out->pixels = box.out;
        box.out = NULL;
        out->width = box.out_width;
        out->height = box.out_height;
        out->scale = factor;
        out->progressive = frame->Interlace ? 1 : 0;
        done = 1;
    }
    /*
     * The rest of the file is walked to its trailer without decoding (image data skipped
     * sub-block by sub-block with DGifGetCode/DGifGetCodeNext): a file truncated or damaged in its
     * structure after the first frame is refused, as a truncated file of any format is. At most
     * PC_GIF_MAX_FRAMES more frames are walked (giflib keeps a record of each).
     */
    for (int frames = 0; status == PC_OK && frames < PC_GIF_MAX_FRAMES;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
        if (type == TERMINATE_RECORD_TYPE) break;
        GifByteType *block = NULL;
        if (type == EXTENSION_RECORD_TYPE) {
            int code = 0;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
            while (block != NULL)
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            int size_code = 0;
            frames++;
            if (DGifGetImageDesc(gif) == GIF_ERROR || DGifGetCode(gif, &size_code, &block) == GIF_ERROR) {
                status = pc_gif_fail(gif->Error, messages);
                break;
            }
            while (block != NULL)
                if (DGifGetCodeNext(gif, &block) == GIF_ERROR) { status = pc_gif_fail(gif->Error, messages); break; }
        }
    }
    if (status != PC_OK && out->pixels != NULL) { free(out->pixels); out->pixels = NULL; }
    pc_box_free(&box);
    free(box.out);
    free(line);
    free(row);
    free(covered);
    DGifCloseFile(gif, &error);
    return status;
}

/* giflib has no run-time version call: the version compiled against (gif_lib.h). */
void pc_gif_version(char *out, size_t capacity) {
    snprintf(out, capacity, "%d.%d.%d", GIFLIB_MAJOR, GIFLIB_MINOR, GIFLIB_RELEASE);
}

/* Tests: writes a one-frame GIF89a with giflib's encoder (see CImageCodec.h pc_gif_write_test). */
pc_status pc_gif_write_test(const char *path, const pc_gif_test_frame *f) {
    int error = 0;
    GifFileType *gif = EGifOpenFileName(path, 0, &error);
    if (gif == NULL) return PC_CORRUPT;
    EGifSetGifVersion(gif, 1);
    GifColorType colors[256];
    for (int i = 0; i < 256; i++) { colors[i].Red = f->palette[i * 3]; colors[i].Green = f->palette[i * 3 + 1]; colors[i].Blue = f->palette[i * 3 + 2]; }
    ColorMapObject *map = GifMakeMapObject(256, colors);
    pc_status status = PC_OK;
    if (map == NULL || EGifPutScreenDesc(gif, f->screen_width, f->screen_height, 8, f->background, map) == GIF_ERROR)
        status = PC_CORRUPT;
    if (status == PC_OK && f->transparent >= 0) {
        GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, false, 0, f->transparent};
        GifByteType ext[4];
        size_t n = EGifGCBToExtension(&gcb, ext);
        if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)n, ext) == GIF_ERROR) status = PC_CORRUPT;
    }
    if (status == PC_OK &&
        EGifPutImageDesc(gif, f->left, f->top, f->width, f->height, f->interlace != 0, NULL) == GIF_ERROR)
        status = PC_CORRUPT;
    static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    int passes = f->interlace ? 4 : 1;
    for (int pass = 0; pass < passes && status == PC_OK; pass++)
        for (int y = f->interlace ? starts[pass] : 0; y < f->height; y += f->interlace ? steps[pass] : 1)
            if (EGifPutLine(gif, (GifPixelType *)(f->indices + (size_t)y * f->width), f->width) == GIF_ERROR) {
                status = PC_CORRUPT;
                break;
            }
    GifFreeMapObject(map);
    if (EGifCloseFile(gif, &error) == GIF_ERROR) status = PC_CORRUPT;
    return status;
}
