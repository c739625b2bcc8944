#ifndef PHOTOS_CDEFLATE_SHIM_H
#define PHOTOS_CDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
