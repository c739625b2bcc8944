/*
 * Videos (issue 25 item 1): detection by content and the poster frame, read with FFmpeg's libraries
 * (libavformat, libavcodec, libswscale, libavutil; FFmpeg 5.1 in Debian 12) in this process, from the
 * file's bytes in memory through a custom AVIOContext (no `ffmpeg` child process, no file name given
 * to libavformat, so no protocol or external reference is ever opened).
 *
 * Bounds per file (the "work per file is bounded"): bytes handed to libavformat at most
 * PC_VIDEO_MAX_BYTES (seeks that re-read count again), packets read at most PC_VIDEO_MAX_PACKETS, a
 * wall-clock limit of PC_VIDEO_SECONDS through AVIOInterruptCB, the frame's declared size checked
 * against max_pixels and the per-worker budget before a decoder is opened, one decoding thread.
 * Crash isolation: in process (a hostile file is bounded, not isolated); raw.c's fork pattern could
 * wrap pc_video_decode later if the fuzz runs show libav crashing.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include "CImageCodec.h"
#include "messages.h"

#define PC_VIDEO_MAX_BYTES ((int64_t)64 << 20)
#define PC_VIDEO_MAX_PACKETS 20000
#define PC_VIDEO_SECONDS 10.0
/* Bytes per pixel a decoder may hold for the frame size: 8 reference frames of 4:2:0 (1.5 B/px). */
#define PC_VIDEO_BYTES_PER_PIXEL 12

static int has_brand(const uint8_t *data, size_t size, const char *const *brands) {
    if (size < 16) return 0;
    uint32_t box = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
    size_t end = box < 16 ? 16 : box;
    if (end > size) end = size;
    for (size_t at = 8; at + 4 <= end; at += 4) {
        if (at == 12) continue; /* minor version */
        for (const char *const *b = brands; *b; b++)
            if (memcmp(data + at, *b, 4) == 0) return 1;
    }
    return 0;
}

int pc_video_sniff(const uint8_t *data, size_t size) {
    if (data == NULL) return 0;
    /* ISO-BMFF (ISO/IEC 14496-12 §4.3 ftyp): a movie brand, and no HEIF/AVIF image brand (those are stills). */
    if (size >= 12 && memcmp(data + 4, "ftyp", 4) == 0) {
        static const char *const image[] = {"heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs",
                                            "mif1", "msf1", "mif2", "avif", "avis", "crx ", NULL};
        static const char *const movie[] = {"qt  ", "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42",
                                            "mp71", "avc1", "M4V ", "M4VH", "M4VP", "3gp4", "3gp5", "3gp6",
                                            "3gp7", "3g2a", "3gpp", "dash", "MSNV", "XAVC", "f4v ", "mmp4",
                                            "NDAS", NULL};
        static const char *const major_image[] = {"heic", "heix", "heim", "heis", "hevc", "hevx", "hevm",
                                                  "hevs", "mif1", "msf1", "mif2", "avif", "avis", "crx ", NULL};
        for (const char *const *b = major_image; *b; b++)
            if (memcmp(data + 8, *b, 4) == 0) return 0;
        if (has_brand(data, size, image)) return 0;
        return has_brand(data, size, movie);
    }
    /* QuickTime files without ftyp: a moov/mdat/wide/free box first. */
    if (size >= 8 && (memcmp(data + 4, "moov", 4) == 0 || memcmp(data + 4, "mdat", 4) == 0 ||
                      memcmp(data + 4, "wide", 4) == 0))
        return 1;
    /* Matroska/WebM: the EBML header element ID 1A 45 DF A3 (RFC 8794 §11.2.1). */
    if (size >= 4 && data[0] == 0x1A && data[1] == 0x45 && data[2] == 0xDF && data[3] == 0xA3) return 1;
    /* AVI: RIFF size "AVI " (RIFF container, OpenDML AVI). */
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "AVI ", 4) == 0) return 1;
    /* MPEG-2 TS (ISO/IEC 13818-1 §2.4.3.2 sync byte 0x47): 188-byte packets, or 192 (M2TS, 4-byte timecode first). */
    if (size >= 3 * 188 && data[0] == 0x47 && data[188] == 0x47 && data[376] == 0x47) return 1;
    if (size >= 3 * 192 && data[4] == 0x47 && data[196] == 0x47 && data[388] == 0x47) return 1;
    return 0;
}

typedef struct pc_video_source {
    const uint8_t *data;
    size_t size;
    size_t position;
    int64_t read_total;
    double deadline;
} pc_video_source;

static double pc_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int pc_video_read(void *opaque, uint8_t *buffer, int capacity) {
    pc_video_source *s = opaque;
    if (s->read_total >= PC_VIDEO_MAX_BYTES) return AVERROR(ENOSPC);
    if (s->position >= s->size) return AVERROR_EOF;
    size_t n = s->size - s->position;
    if (n > (size_t)capacity) n = (size_t)capacity;
    memcpy(buffer, s->data + s->position, n);
    s->position += n;
    s->read_total += (int64_t)n;
    return (int)n;
}

static int64_t pc_video_seek(void *opaque, int64_t offset, int whence) {
    pc_video_source *s = opaque;
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE) return (int64_t)s->size;
    int64_t base = whence == SEEK_CUR ? (int64_t)s->position : whence == SEEK_END ? (int64_t)s->size : 0;
    int64_t target = base + offset;
    if (target < 0 || target > (int64_t)s->size) return AVERROR(EINVAL);
    s->position = (size_t)target;
    return target;
}

static int pc_video_interrupt(void *opaque) {
    const pc_video_source *s = opaque;
    return pc_now() > s->deadline || s->read_total >= PC_VIDEO_MAX_BYTES;
}

static void pc_copy_tag(AVDictionary *metadata, const char *key, char *out, size_t capacity) {
    AVDictionaryEntry *e = av_dict_get(metadata, key, NULL, 0);
    if (e && e->value && out[0] == '\0') snprintf(out, capacity, "%s", e->value);
}

/* Rotates RGB24 pixels clockwise by 90, 180 or 270 degrees into a new buffer. */
static uint8_t *pc_rotate(const uint8_t *src, int width, int height, int degrees, int *out_w, int *out_h) {
    int w = (degrees == 90 || degrees == 270) ? height : width;
    int h = (degrees == 90 || degrees == 270) ? width : height;
    uint8_t *dst = malloc((size_t)w * (size_t)h * 3);
    if (!dst) return NULL;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            int dx, dy;
            if (degrees == 90) { dx = height - 1 - y; dy = x; }
            else if (degrees == 180) { dx = width - 1 - x; dy = height - 1 - y; }
            else { dx = y; dy = width - 1 - x; }
            memcpy(dst + ((size_t)dy * w + dx) * 3, src + ((size_t)y * width + x) * 3, 3);
        }
    }
    *out_w = w;
    *out_h = h;
    return dst;
}

static pc_status pc_frame_to_rgb(const AVFrame *frame, int target_edge, int rotation, pc_decoded *out,
                                 pc_messages *messages) {
    int w = frame->width, h = frame->height;
    if (w <= 0 || h <= 0) { pc_set_error(messages, "video frame has no size"); return PC_CORRUPT; }
    /* Scale so the long edge stays >= target_edge (the reducer takes it to the exact size). */
    int long_edge = w > h ? w : h;
    int tw = w, th = h;
    if (target_edge > 0 && long_edge > 2 * target_edge) {
        double f = (double)(2 * target_edge) / long_edge;
        tw = (int)(w * f + 0.5); th = (int)(h * f + 0.5);
        if (tw < 1) tw = 1;
        if (th < 1) th = 1;
    }
    /* BT.601/709 YUV → RGB24 by swscale, taken as sRGB (the video's transfer is close to sRGB's, ITU-R BT.709). */
    struct SwsContext *sws = sws_getContext(w, h, frame->format, tw, th, AV_PIX_FMT_RGB24, SWS_AREA, NULL, NULL, NULL);
    if (!sws) { pc_set_error(messages, "video frame's pixel format cannot be converted"); return PC_UNSUPPORTED; }
    uint8_t *rgb = malloc((size_t)tw * (size_t)th * 3);
    if (!rgb) { sws_freeContext(sws); return PC_NO_MEMORY; }
    uint8_t *planes[4] = {rgb, NULL, NULL, NULL};
    int strides[4] = {tw * 3, 0, 0, 0};
    sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, h, planes, strides);
    sws_freeContext(sws);
    if (rotation) {
        int rw, rh;
        uint8_t *r = pc_rotate(rgb, tw, th, rotation, &rw, &rh);
        free(rgb);
        if (!r) return PC_NO_MEMORY;
        rgb = r; tw = rw; th = rh;
    }
    out->pixels = rgb;
    out->width = tw;
    out->height = th;
    return PC_OK;
}

pc_status pc_video_decode(const uint8_t *data, size_t size, const pc_decode_options *options, pc_video_info *info,
                          pc_decoded *out, pc_messages *messages) {
    memset(info, 0, sizeof *info);
    memset(out, 0, sizeof *out);
    pc_status status = PC_CORRUPT;
    pc_video_source source = {data, size, 0, 0, pc_now() + PC_VIDEO_SECONDS};
    AVFormatContext *format = NULL;
    AVCodecContext *codec = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    const int io_size = 64 << 10;
    uint8_t *io_buffer = av_malloc(io_size);
    AVIOContext *io = io_buffer ? avio_alloc_context(io_buffer, io_size, 0, &source, pc_video_read, NULL, pc_video_seek)
                                : NULL;
    if (!io) { av_free(io_buffer); return PC_NO_MEMORY; }
    format = avformat_alloc_context();
    if (!format) { status = PC_NO_MEMORY; goto done; }
    format->pb = io;
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    format->interrupt_callback.callback = pc_video_interrupt;
    format->interrupt_callback.opaque = &source;
    format->probesize = 5 << 20;
    format->max_analyze_duration = 5 * AV_TIME_BASE;
    av_log_set_level(AV_LOG_QUIET);
    if (avformat_open_input(&format, NULL, NULL, NULL) < 0) {
        format = NULL; /* freed by avformat_open_input on failure */
        pc_set_error(messages, "not a video libavformat can read");
        goto done;
    }
    if (avformat_find_stream_info(format, NULL) < 0) {
        pc_set_error(messages, "video's streams cannot be read");
        goto done;
    }
    int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    /* Cover art (attached_pic): a video stream flagged AV_DISPOSITION_ATTACHED_PIC holding one picture. */
    int cover = -1;
    for (unsigned i = 0; i < format->nb_streams; i++)
        if (format->streams[i]->disposition & AV_DISPOSITION_ATTACHED_PIC) { cover = (int)i; break; }
    int main_index = index;
    if (main_index >= 0 && (format->streams[main_index]->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
        main_index = -1;
        for (unsigned i = 0; i < format->nb_streams; i++) {
            AVStream *st = format->streams[i];
            if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && !(st->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
                main_index = (int)i;
                break;
            }
        }
    }
    if (main_index < 0 && cover < 0) { pc_set_error(messages, "file has no video stream"); goto done; }
    AVStream *main_stream = main_index >= 0 ? format->streams[main_index] : format->streams[cover];
    AVStream *stream = cover >= 0 ? format->streams[cover] : main_stream;
    info->from_cover = cover >= 0;
    if (format->duration > 0) info->duration = (double)format->duration / AV_TIME_BASE;
    const AVCodecDescriptor *descriptor = avcodec_descriptor_get(main_stream->codecpar->codec_id);
    snprintf(info->codec, sizeof info->codec, "%s", descriptor ? descriptor->name : "unknown");
    pc_copy_tag(format->metadata, "com.apple.quicktime.creationdate", info->creation_date, sizeof info->creation_date);
    pc_copy_tag(format->metadata, "creation_time", info->creation_time, sizeof info->creation_time);
    pc_copy_tag(main_stream->metadata, "creation_time", info->creation_time, sizeof info->creation_time);
    pc_copy_tag(format->metadata, "com.apple.quicktime.content.identifier", info->content_identifier,
                sizeof info->content_identifier);
    pc_copy_tag(format->metadata, "com.apple.quicktime.location.ISO6709", info->location, sizeof info->location);
    pc_copy_tag(format->metadata, "location", info->location, sizeof info->location);
    /* The display matrix (ISO/IEC 14496-12 §8.2.2 tkhd matrix): libavutil gives the counter-clockwise angle. */
    int rotation = 0;
    const uint8_t *matrix = av_stream_get_side_data(main_stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix) {
        double angle = -av_display_rotation_get((const int32_t *)matrix);
        if (angle == angle) {
            int r = (int)(angle + (angle < 0 ? -0.5 : 0.5)) % 360;
            if (r < 0) r += 360;
            rotation = (r + 45) / 90 * 90 % 360;
        }
    }
    if (info->from_cover) rotation = 0;
    info->rotation = rotation;
    int64_t sw = main_stream->codecpar->width, sh = main_stream->codecpar->height;
    out->stored_width = (int)((rotation == 90 || rotation == 270) ? sh : sw);
    out->stored_height = (int)((rotation == 90 || rotation == 270) ? sw : sh);
    int64_t fw = stream->codecpar->width, fh = stream->codecpar->height;
    if (fw <= 0 || fh <= 0) { pc_set_error(messages, "video stream declares no frame size"); goto done; }
    if (options->max_pixels && (uint64_t)(fw * fh) > options->max_pixels) { status = PC_TOO_LARGE; goto done; }
    if ((uint64_t)(fw * fh) * PC_VIDEO_BYTES_PER_PIXEL > PC_DECODE_BUDGET_BYTES) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "video frames of %lldx%lld would take more than the %d MB decode budget",
                 (long long)fw, (long long)fh, PC_DECODE_BUDGET_MB);
        pc_set_error(messages, text);
        status = PC_OVER_BUDGET;
        goto done;
    }
    const AVCodec *decoder = avcodec_find_decoder(stream->codecpar->codec_id);
    if (!decoder) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "no decoder for the video codec %s", info->codec);
        pc_set_error(messages, text);
        status = PC_UNSUPPORTED;
        goto done;
    }
    codec = avcodec_alloc_context3(decoder);
    if (!codec || avcodec_parameters_to_context(codec, stream->codecpar) < 0) { status = PC_NO_MEMORY; goto done; }
    codec->thread_count = 1;
    codec->skip_frame = AVDISCARD_NONKEY;
    /* lowres: decode at 1/2^n where the decoder allows (MJPEG, MPEG-4 part 2...); H.264/HEVC do not. */
    int lowres = 0;
    while (lowres < decoder->max_lowres && options->target_edge > 0 &&
           ((fw > fh ? fw : fh) >> (lowres + 1)) >= 2 * options->target_edge)
        lowres++;
    codec->lowres = lowres;
    if (avcodec_open2(codec, decoder, NULL) < 0) {
        pc_set_error(messages, "video decoder refused the stream");
        goto done;
    }
    /* The poster's time: 1 s, or 10 % of the duration for clips shorter than 10 s. */
    int64_t target = AV_NOPTS_VALUE;
    if (!info->from_cover) {
        double at = info->duration > 0 && info->duration < 10 ? info->duration * 0.1 : 1.0;
        target = av_rescale_q((int64_t)(at * AV_TIME_BASE), AV_TIME_BASE_Q, stream->time_base);
        if (stream->start_time != AV_NOPTS_VALUE) target += stream->start_time;
        if (av_seek_frame(format, stream->index, target, AVSEEK_FLAG_BACKWARD) < 0)
            av_seek_frame(format, stream->index, 0, AVSEEK_FLAG_BACKWARD);
    }
    packet = av_packet_alloc();
    frame = av_frame_alloc();
    if (!packet || !frame) { status = PC_NO_MEMORY; goto done; }
    AVFrame *fallback = av_frame_alloc(); /* the last keyframe before target, used at end of stream */
    int have_fallback = 0, found = 0, packets = 0, ended = 0;
    while (!found && !ended) {
        int r;
        if (info->from_cover && packets == 0 && stream->attached_pic.size > 0) {
            r = av_packet_ref(packet, &stream->attached_pic);
        } else {
            r = av_read_frame(format, packet);
        }
        if (r < 0) {
            ended = 1;
            avcodec_send_packet(codec, NULL);
        } else {
            packets++;
            if (packet->stream_index != stream->index) { av_packet_unref(packet); goto bounds; }
            r = avcodec_send_packet(codec, packet);
            av_packet_unref(packet);
            if (info->from_cover) avcodec_send_packet(codec, NULL);
        }
        while (avcodec_receive_frame(codec, frame) == 0) {
            int64_t pts = frame->best_effort_timestamp;
            if (info->from_cover || target == AV_NOPTS_VALUE || pts == AV_NOPTS_VALUE || pts >= target) {
                found = 1;
                break;
            }
            if (fallback) {
                av_frame_unref(fallback);
                av_frame_move_ref(fallback, frame);
                have_fallback = 1;
            } else {
                av_frame_unref(frame);
            }
        }
        if (info->from_cover && !found) ended = 1;
    bounds:
        if (packets >= PC_VIDEO_MAX_PACKETS || source.read_total >= PC_VIDEO_MAX_BYTES ||
            pc_now() > source.deadline)
            break;
    }
    if (!found && have_fallback) { av_frame_unref(frame); av_frame_move_ref(frame, fallback); found = 1; }
    av_frame_free(&fallback);
    if (!found) {
        pc_set_error(messages, pc_now() > source.deadline ? "no decodable video frame within 10 s"
                                                           : "no decodable video frame within 64 MB of the file");
        goto done;
    }
    status = pc_frame_to_rgb(frame, options->target_edge, rotation, out, messages);
done:
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&codec);
    if (format) avformat_close_input(&format);
    if (io) { av_freep(&io->buffer); avio_context_free(&io); }
    return status;
}

void pc_video_version(char *out, size_t capacity) {
    unsigned f = avformat_version(), c = avcodec_version(), s = swscale_version(), u = avutil_version();
    snprintf(out, capacity, "libavformat %u.%u.%u, libavcodec %u.%u.%u, libswscale %u.%u.%u, libavutil %u.%u.%u",
             f >> 16, f >> 8 & 255, f & 255, c >> 16, c >> 8 & 255, c & 255, s >> 16, s >> 8 & 255, s & 255,
             u >> 16, u >> 8 & 255, u & 255);
}
