#include "CImageCodec.h"
int pc_codec_version(void) { return 1; }
