#ifndef PHOTOS_CJXL_SHIM_H
#define PHOTOS_CJXL_SHIM_H
#include <jxl/decode.h>
#endif
