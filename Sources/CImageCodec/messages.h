#ifndef PHOTOS_CIMAGECODEC_MESSAGES_H
#define PHOTOS_CIMAGECODEC_MESSAGES_H
#include <string.h>
#include "CImageCodec.h"

static inline void pc_set_error(pc_messages *m, const char *text) {
    if (m->error[0] != '\0') return; /* keep the first, it names the cause */
    strncpy(m->error, text, PC_MESSAGE_CAPACITY - 1);
    m->error[PC_MESSAGE_CAPACITY - 1] = '\0';
}

static inline void pc_add_warning(pc_messages *m, const char *text) {
    size_t used = strlen(m->warnings);
    size_t length = strlen(text);
    m->warning_count++;
    if (used + length + 2 > PC_WARNINGS_CAPACITY) return; /* counted, not stored */
    memcpy(m->warnings + used, text, length);
    m->warnings[used + length] = '\n';
    m->warnings[used + length + 1] = '\0';
}
#endif
