#ifndef PHOTOS_CWEBP_SHIM_H
#define PHOTOS_CWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/encode.h>
#endif
