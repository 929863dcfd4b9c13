#ifndef CPOSTGRES_SHIM_H
#define CPOSTGRES_SHIM_H
/* A missing header names the Debian package that provides it (tools/bootstrap installs it). */
#if !__has_include(<libpq-fe.h>)
#error "libpq-fe.h not found: install the Debian package libpq-dev (or run tools/bootstrap)"
#endif
#include <libpq-fe.h>
#endif
