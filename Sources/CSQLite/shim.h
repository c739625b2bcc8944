#ifndef PHOTOS_CSQLITE_SHIM_H
#define PHOTOS_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast of -1 to a destructor pointer, which Swift cannot import.
static inline sqlite3_destructor_type photos_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type photos_sqlite_static(void) { return SQLITE_STATIC; }

/// Configures a connection for files photos may not have made (issue 31 item 17;
/// https://www.sqlite.org/security.html, https://www.sqlite.org/c3ref/c_dbconfig_defensive.html):
/// schema-defined SQL may call no function that is not innocuous (`trusted_schema=OFF`), views
/// and triggers are not run at all (photos defines none), defensive mode (no writable_schema,
/// no shadow-table writes), no extension loading (neither C API nor SQL `load_extension()`).
/// sqlite3_db_config is variadic, which Swift cannot call.
/// Returns SQLITE_OK or the first failing code.
static inline int photos_sqlite_harden(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_enable_load_extension(db, 0);
    return rc;
}

/// The work left to a connection reading an untrusted file, in units of the progress
/// handler's period (`photos_sqlite_set_work_budget`).
typedef struct { long long remaining; } photos_sqlite_work_budget;

static int photos_sqlite_work_step(void *context) {
    photos_sqlite_work_budget *budget = (photos_sqlite_work_budget *)context;
    budget->remaining -= 1;
    return budget->remaining < 0 ? 1 : 0;
}

/// Installs a progress handler that interrupts (SQLITE_INTERRUPT) every statement once
/// `budget->remaining` periods of `period` virtual-machine instructions have run.
static inline void photos_sqlite_set_work_budget(sqlite3 *db, photos_sqlite_work_budget *budget, int period) {
    sqlite3_progress_handler(db, period, photos_sqlite_work_step, budget);
}
#endif
