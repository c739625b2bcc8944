/* The test-only entry points of CImageCodec, as the module the test targets import (Package.swift):
 * the declarations are CImageCodec's own test header, kept beside the code that defines them. */
#include "../../CImageCodec/CImageCodecTesting.h"
