#ifndef PHOTOS_CEXEMPI_SHIM_H_QUIET
#define PHOTOS_CEXEMPI_SHIM_H_QUIET
#ifdef __cplusplus
extern "C" {
#endif

/// Silences C++ `std::cerr` for the whole process. Exempi 2.6 writes the message of every
/// XMP Toolkit error to std::cerr (exempi.cpp `set_error`) besides returning it through
/// `xmp_get_error`; photos reports errors itself, one line naming the file, and nothing else
/// in the process writes to std::cerr (the other libraries are C). Idempotent.
void photos_silence_cxx_cerr(void);

/// Gives free heap memory of every malloc arena back to the system (glibc malloc_trim(3)):
/// after a large XMP packet tree is freed, so that the next worker's tree, in its own thread's
/// arena, does not add to the peak.
void photos_release_free_memory(void);

#ifdef __cplusplus
}
#endif
#endif
