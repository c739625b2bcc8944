#ifndef PHOTOS_CISAL_SHIM_H
#define PHOTOS_CISAL_SHIM_H
#include <isa-l/igzip_lib.h>
#endif
