/* See heifapi.h: libheif's functions, resolved from libheif.so.1 on first use. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "heifapi.h"

/* Written once, under pthread_once, before any caller reads them; never changed afterwards. */
#define PC_HEIF_DEFINE(name) __typeof__(pc_heifapi_##name) pc_heifapi_##name = NULL;
PC_HEIF_FUNCTIONS(PC_HEIF_DEFINE)
#undef PC_HEIF_DEFINE

static pthread_once_t pc_heif_once = PTHREAD_ONCE_INIT;
static int pc_heif_loaded;
static char pc_heif_failure[256];

static void pc_heif_load_once(void) {
    /* The SONAME of Debian's libheif1 (the -dev package's libheif.so points at it). Never
     * unloaded: its pointers stay valid for the life of the process. */
    void *library = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(pc_heif_failure, sizeof pc_heif_failure, "%s", why != NULL ? why : "libheif.so.1: cannot be loaded");
        return;
    }
#define PC_HEIF_RESOLVE(name)                                                                          \
    *(void **)&pc_heifapi_##name = dlsym(library, #name);                                              \
    if (pc_heifapi_##name == NULL) {                                                                   \
        snprintf(pc_heif_failure, sizeof pc_heif_failure, "libheif.so.1 has no function %s", #name); \
        return;                                                                                        \
    }
    PC_HEIF_FUNCTIONS(PC_HEIF_RESOLVE)
#undef PC_HEIF_RESOLVE
    pc_heif_loaded = 1;
}

int pc_heif_load(char *error, size_t size) {
    pthread_once(&pc_heif_once, pc_heif_load_once);
    if (pc_heif_loaded) return 1;
    if (error != NULL && size > 0) snprintf(error, size, "HEIF/AVIF support unavailable: %s", pc_heif_failure);
    return 0;
}
