#ifndef PHOTOS_CJPEG_SHIM_H
#define PHOTOS_CJPEG_SHIM_H
/* jpeglib.h needs FILE and size_t declared before it (libjpeg.txt). */
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
#endif
