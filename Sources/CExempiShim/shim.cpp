// The only C++ of our own: exempi prints every toolkit error to std::cerr, which Swift
// cannot reach. See include/CExempiShim.h.
#include <iostream>
#include "CExempiShim.h"

extern "C" void photos_silence_cxx_cerr(void) {
    // A stream in a failed state formats and writes nothing (C++ [iostate.flags]).
    std::cerr.setstate(std::ios_base::badbit);
}

#include <malloc.h>

extern "C" void photos_release_free_memory(void) {
    // glibc malloc_trim(3): returns free memory at the top of the heap and, since 2.8, free
    // pages of every arena to the system.
    malloc_trim(0);
}
