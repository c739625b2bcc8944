#ifndef PHOTOS_CSQLITE_SHIM_H
#define PHOTOS_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast of -1 to a destructor pointer, which Swift cannot import.
static inline sqlite3_destructor_type photos_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type photos_sqlite_static(void) { return SQLITE_STATIC; }
#endif
