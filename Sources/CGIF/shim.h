#ifndef PHOTOS_CGIF_SHIM_H
#define PHOTOS_CGIF_SHIM_H
#include <gif_lib.h>
#endif
