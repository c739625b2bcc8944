/*
 * The decoder process (decoder.c, decodermain.c): RAW (raw.c) and HEIF (heif.c) files are decoded by
 * a separate executable, photos-decoder, started with posix_spawn(3) for each file, never by a
 * fork(2) of the importing process that then runs the decoder: a child of a multi-threaded process
 * may call only async-signal-safe functions until it execs (POSIX fork(2)), and glibc does not reset
 * its environment and tzset locks in such a child, so a child running setenv/tzset/mktime/malloc
 * (LibRaw, libheif) waits forever when another thread held one at the fork
 * (Benchmarks/decoder-isolation-stress.c: 10 of 10 forked decodes hung).
 *
 * The request: a sealed memfd at PC_DECODER_REQUEST_FD holding a pc_decoder_request and then the
 * file's bytes (bounded by the bytes given: the helper maps exactly the memfd's size); the reply,
 * raw.c's or heif.c's reply struct and its payloads, on a pipe at PC_DECODER_REPLY_FD; for HEIF the
 * large-decode mutex's shared memfd at PC_DECODER_LOCK_FD. The helper's standard input and output
 * are /dev/null, its standard error too (LibRaw and libjpeg print warnings there).
 */
#ifndef PHOTOS_CIMAGECODEC_DECODER_H
#define PHOTOS_CIMAGECODEC_DECODER_H
#include <stdint.h>
#include <sys/types.h>
#include "CImageCodec.h"

#define PC_DECODER_REQUEST_FD 3
#define PC_DECODER_REPLY_FD 4
#define PC_DECODER_LOCK_FD 5
#define PC_DECODER_MAGIC 0x50434431u /* "PCD1" */
#define PC_DECODER_RAW 1
#define PC_DECODER_HEIF 2
/* The helper's file name, looked for next to the running executable (/proc/self/exe). */
#define PC_DECODER_NAME "photos-decoder"

typedef struct pc_decoder_request {
    uint32_t magic, kind;
    pc_decode_options options;
    uint64_t size; /* bytes of the file after this header */
} pc_decoder_request;

/*
 * Starts the helper on `size` bytes of `data`: 1 with *pid and *reply_fd (the pipe's read end,
 * close-on-exec) set, or 0 with the reason in messages (no helper found: its path and
 * PHOTOS_DECODER named). lock_fd >= 0 is passed on at PC_DECODER_LOCK_FD.
 */
int pc_decoder_start(uint32_t kind, const uint8_t *data, size_t size, const pc_decode_options *options, int lock_fd,
                     pid_t *pid, int *reply_fd, pc_messages *messages);

/* The helper's side of each kind: decodes and writes the reply to reply_fd; 1 when written whole. */
int pc_raw_serve(const uint8_t *data, size_t size, const pc_decode_options *options, int reply_fd);
int pc_heif_serve(const uint8_t *data, size_t size, const pc_decode_options *options, int reply_fd, int lock_fd);
#endif
