#ifndef PHOTOS_CEXEMPI_SHIM_H
#define PHOTOS_CEXEMPI_SHIM_H
/* Exempi 2.x (Debian libexempi-dev), the C API over Adobe's XMP Toolkit. */
#include <exempi/xmp.h>
#endif
