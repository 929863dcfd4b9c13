#ifndef CPOSTGRES_SHIM_H
#define CPOSTGRES_SHIM_H
/* A missing header names the Debian package that provides it (tools/bootstrap installs it). */
#if !__has_include(<postgresql/libpq-fe.h>)
#error "postgresql/libpq-fe.h not found: install the Debian package libpq-dev (or run tools/bootstrap)"
#endif
#include <postgresql/libpq-fe.h>

/* libpq is opened at its first use (pq_loader.c), not when the process starts: with its dependencies (Kerberos,
   LDAP, GnuTLS) it cost every command about 3 ms to load, though only a ledger in PostgreSQL needs it. The PQ*
   functions Swift calls are defined there, each going to libpq's own. Until libpq could be opened, PQconninfoParse,
   PQconnectdb and PQconnectdbParams fail (NULL, with the reason for the first), and cpq_load_error() says why. */
const char *cpq_load_error(void);
#endif
