#ifndef PHOTOS_CLIBRAW_SHIM_H
#define PHOTOS_CLIBRAW_SHIM_H
/* LibRaw's C API (Debian libraw-dev installs it under libraw/). */
#include <libraw/libraw.h>
#endif
