#ifndef PHOTOS_CLCMS2_SHIM_H
#define PHOTOS_CLCMS2_SHIM_H
#include <lcms2.h>
#endif
