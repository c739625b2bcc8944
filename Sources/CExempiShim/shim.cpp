// The only C++ of our own: exempi prints every toolkit error to std::cerr, which Swift
// cannot reach. See include/CExempiShim.h.
#include <iostream>
#include "CExempiShim.h"

extern "C" void photos_silence_cxx_cerr(void) {
    // A stream in a failed state formats and writes nothing (C++ [iostate.flags]).
    std::cerr.setstate(std::ios_base::badbit);
}
