/*
 * photos-decoder: the process that decodes one camera RAW or HEIF/AVIF file for photos (decoder.h in
 * CImageCodec), started by the importing process with posix_spawn for each such file; not meant to
 * be run by hand (it reads its request from descriptor 3 and answers on descriptor 4, decoder.h).
 *
 * It is built from CImageCodec's RAW and HEIF sources alone (the links beside this file), not the
 * whole codec target: linked against LibRaw, lcms2 and libm only (libheif is loaded on use), it
 * starts in about 2 ms, where one linked with FFmpeg's and every other codec's libraries (145
 * shared objects) spent about 30 ms of CPU in the dynamic loader and their constructors.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "decoder.h"

int main(void) {
    /* A CPU-time bound of its own (setrlimit(2) RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the
     * hard one), twice the importing process's wall-clock limit: a helper whose importing process was
     * killed (-9) while LibRaw or libheif looped is not left spinning for ever. */
    struct rlimit cpu = { .rlim_cur = 240, .rlim_max = 250 };
    setrlimit(RLIMIT_CPU, &cpu);
    struct stat st;
    if (fstat(PC_DECODER_REQUEST_FD, &st) != 0 || st.st_size < (off_t)sizeof(pc_decoder_request)) return 66;
    size_t total = (size_t)st.st_size;
    const uint8_t *map = mmap(NULL, total, PROT_READ, MAP_PRIVATE, PC_DECODER_REQUEST_FD, 0);
    if (map == MAP_FAILED) return 71;
    close(PC_DECODER_REQUEST_FD);
    pc_decoder_request request;
    memcpy(&request, map, sizeof request);
    /* The size said must be the size mapped: the bytes given, nothing declared. */
    if (request.magic != PC_DECODER_MAGIC || request.size != total - sizeof request) return 65;
    /* LibRaw turns the EXIF capture time into a time_t with mktime (local time): in UTC that time_t
     * read back with gmtime is the camera's wall clock. This process is single-threaded here. */
    setenv("TZ", "UTC", 1);
    tzset();
    const uint8_t *data = map + sizeof request;
    int ok = 0;
    if (request.kind == PC_DECODER_RAW) ok = pc_raw_serve(data, (size_t)request.size, &request.options, PC_DECODER_REPLY_FD);
    else if (request.kind == PC_DECODER_HEIF)
        ok = pc_heif_serve(data, (size_t)request.size, &request.options, PC_DECODER_REPLY_FD, PC_DECODER_LOCK_FD);
    else return 64;
    return ok ? 0 : 1;
}
