#ifndef PHOTOS_CTIFF_SHIM_H
#define PHOTOS_CTIFF_SHIM_H
#include <tiffio.h>
#endif
