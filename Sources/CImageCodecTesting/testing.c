/*
 * CImageCodecTesting holds no code: it gives the test targets CImageCodec's test-only header
 * (Sources/CImageCodec/CImageCodecTesting.h) as a module of its own, so that the product's module
 * CImageCodec shows only include/CImageCodec.h. The functions are defined in CImageCodec.
 */
#include "CImageCodecTesting.h"
