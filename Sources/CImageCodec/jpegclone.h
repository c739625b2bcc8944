#ifndef PHOTOS_CIMAGECODEC_JPEGCLONE_H
#define PHOTOS_CIMAGECODEC_JPEGCLONE_H
/* The libjpeg-turbo version fence (jpegclone.c), inside CImageCodec only. */
#include <stddef.h>
#include "CImageCodec.h"

/* 1 when dconly.c's decoders and thumbjpeg.c's encoder may run in this process (checked once). */
int pc_jpeg_clone_active(void);

/* The linked libjpeg-turbo's version ("2.1.5"), found in the loaded library; "" when not found. */
const char *pc_jpeg_linked_version(void);

/* pc_jpeg_decode with our decoders allowed (clone = 1) or libjpeg's decode only (clone = 0). */
pc_status pc_jpeg_decode_with(const uint8_t *data, size_t size, const pc_decode_options *options, int clone,
                              pc_decoded *out, pc_messages *messages);
/* The probe's 32 x 16 RGB test image (96 bytes a row), for Tests/Fuzz/probe_files.c. */
void pc_jpeg_probe_image(uint8_t *rgb);
#endif
