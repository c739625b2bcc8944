#ifndef PHOTOS_CIMAGECODEC_H
#define PHOTOS_CIMAGECODEC_H
/* Placeholder: the libjpeg/libpng shim is filled in by the imaging work. */
int pc_codec_version(void);
#endif
