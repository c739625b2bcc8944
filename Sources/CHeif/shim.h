#ifndef PHOTOS_CHEIF_SHIM_H
#define PHOTOS_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
