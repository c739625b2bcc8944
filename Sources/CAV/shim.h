#ifndef PHOTOS_CAV_SHIM_H
#define PHOTOS_CAV_SHIM_H
/* FFmpeg's libraries (Debian libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev; FFmpeg 5.1 in Debian 12). */
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#endif
