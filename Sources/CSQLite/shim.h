#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
/* A missing header names the Debian package that provides it (tools/bootstrap installs it). */
#if !__has_include(<sqlite3.h>)
#error "sqlite3.h not found: install the Debian package libsqlite3-dev (or run tools/bootstrap)"
#endif
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import; bind calls use it through these.
static inline int csqlite_bind_text_transient(sqlite3_stmt *s, int i, const char *t, int n) {
    return sqlite3_bind_text(s, i, t, n, SQLITE_TRANSIENT);
}
static inline int csqlite_bind_blob_transient(sqlite3_stmt *s, int i, const void *b, int n) {
    return sqlite3_bind_blob(s, i, b, n, SQLITE_TRANSIENT);
}
static inline int csqlite_config_busy_timeout(sqlite3 *db, int ms) {
    return sqlite3_busy_timeout(db, ms);
}
/// sqlite3_config is variadic. Turning memory statistics off removes a global mutex from every allocation;
/// it only works before SQLite initialises and returns SQLITE_MISUSE afterwards (harmless).
static inline int csqlite_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}
#endif
