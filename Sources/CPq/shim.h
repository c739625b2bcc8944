#ifndef PHOTOS_CPQ_SHIM_H
#define PHOTOS_CPQ_SHIM_H
#include <libpq-fe.h>

/// A notice processor that drops the message: libpq's default one prints NOTICEs (for example
/// "relation already exists, skipping") to stderr, which is the CLI's to own.
static inline void photos_pq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}
#endif
