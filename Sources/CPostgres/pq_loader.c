/* libpq, opened at its first use instead of when the process starts (see CPostgres.h for why).
 *
 * Every PQ* function Swift calls is defined here with libpq's own prototype and goes to libpq's definition, found
 * once with dlsym. The definitions are hidden: they are not exported from the executable, so libpq's calls to its
 * own functions never land here. Only the functions that begin a connection can be reached without one; until
 * libpq could be opened they fail, and cpq_load_error() says why. */

/* The system's headers first, outside the pragma: what they declare lives in shared libraries and must stay
   visible to the linker. Then libpq's and ours, whose definitions below are hidden. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#pragma GCC visibility push(hidden)
#include "CPostgres.h"

static struct {
    int loaded;
    char error[512];
    int (*backendPID)(const PGconn *);
    void (*clear)(PGresult *);
    PGconn *(*connectdb)(const char *);
    PGconn *(*connectdbParams)(const char *const *, const char *const *, int);
    void (*conninfoFree)(PQconninfoOption *);
    PQconninfoOption *(*conninfoParse)(const char *, char **);
    int (*consumeInput)(PGconn *);
    char *(*errorMessage)(const PGconn *);
    PGresult *(*exec)(PGconn *, const char *);
    PGresult *(*execParams)(PGconn *, const char *, int, const Oid *, const char *const *, const int *,
                            const int *, int);
    void (*finish)(PGconn *);
    void (*freemem)(void *);
    PGresult *(*getResult)(PGconn *);
    int (*getisnull)(const PGresult *, int, int);
    int (*getlength)(const PGresult *, int, int);
    char *(*getvalue)(const PGresult *, int, int);
    PGnotify *(*notifies)(PGconn *);
    int (*ntuples)(const PGresult *);
    int (*putCopyData)(PGconn *, const char *, int);
    int (*putCopyEnd)(PGconn *, const char *);
    void (*reset)(PGconn *);
    char *(*resultErrorField)(const PGresult *, int);
    char *(*resultErrorMessage)(const PGresult *);
    ExecStatusType (*resultStatus)(const PGresult *);
    int (*sendQueryParams)(PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *,
                           int);
    PQnoticeProcessor (*setNoticeProcessor)(PGconn *, PQnoticeProcessor, void *);
    int (*setSingleRowMode)(PGconn *);
    int (*socket)(const PGconn *);
    ConnStatusType (*status)(const PGconn *);
    PGTransactionStatusType (*transactionStatus)(const PGconn *);
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Resolves `name` into `*slot`; false (and the reason kept) when libpq lacks it. */
static int resolve(void *handle, const char *name, void **slot) {
    *slot = dlsym(handle, name);
    if (*slot != NULL) return 1;
    snprintf(lib.error, sizeof lib.error, "libpq has no %s", name);
    return 0;
}

static void load(void) {
    /* The library's name with its ABI version, as Debian's libpq5 installs it. */
    void *handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(lib.error, sizeof lib.error, "cannot load libpq: %s (install the Debian package libpq5)",
                 reason ? reason : "not found");
        return;
    }
    int ok = resolve(handle, "PQbackendPID", (void **)&lib.backendPID) &&
             resolve(handle, "PQclear", (void **)&lib.clear) &&
             resolve(handle, "PQconnectdb", (void **)&lib.connectdb) &&
             resolve(handle, "PQconnectdbParams", (void **)&lib.connectdbParams) &&
             resolve(handle, "PQconninfoFree", (void **)&lib.conninfoFree) &&
             resolve(handle, "PQconninfoParse", (void **)&lib.conninfoParse) &&
             resolve(handle, "PQconsumeInput", (void **)&lib.consumeInput) &&
             resolve(handle, "PQerrorMessage", (void **)&lib.errorMessage) &&
             resolve(handle, "PQexec", (void **)&lib.exec) &&
             resolve(handle, "PQexecParams", (void **)&lib.execParams) &&
             resolve(handle, "PQfinish", (void **)&lib.finish) &&
             resolve(handle, "PQfreemem", (void **)&lib.freemem) &&
             resolve(handle, "PQgetResult", (void **)&lib.getResult) &&
             resolve(handle, "PQgetisnull", (void **)&lib.getisnull) &&
             resolve(handle, "PQgetlength", (void **)&lib.getlength) &&
             resolve(handle, "PQgetvalue", (void **)&lib.getvalue) &&
             resolve(handle, "PQnotifies", (void **)&lib.notifies) &&
             resolve(handle, "PQntuples", (void **)&lib.ntuples) &&
             resolve(handle, "PQputCopyData", (void **)&lib.putCopyData) &&
             resolve(handle, "PQputCopyEnd", (void **)&lib.putCopyEnd) &&
             resolve(handle, "PQreset", (void **)&lib.reset) &&
             resolve(handle, "PQresultErrorField", (void **)&lib.resultErrorField) &&
             resolve(handle, "PQresultErrorMessage", (void **)&lib.resultErrorMessage) &&
             resolve(handle, "PQresultStatus", (void **)&lib.resultStatus) &&
             resolve(handle, "PQsendQueryParams", (void **)&lib.sendQueryParams) &&
             resolve(handle, "PQsetNoticeProcessor", (void **)&lib.setNoticeProcessor) &&
             resolve(handle, "PQsetSingleRowMode", (void **)&lib.setSingleRowMode) &&
             resolve(handle, "PQsocket", (void **)&lib.socket) &&
             resolve(handle, "PQstatus", (void **)&lib.status) &&
             resolve(handle, "PQtransactionStatus", (void **)&lib.transactionStatus);
    if (ok) {
        lib.error[0] = '\0';
        lib.loaded = 1;
    }
}

/* Opens libpq once (any thread); true when every function was found. */
static int ready(void) {
    pthread_once(&load_once, load);
    return lib.loaded;
}

const char *cpq_load_error(void) { return ready() ? NULL : lib.error; }

/* The ways in: they fail without libpq. */
PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg) {
    if (ready()) return lib.conninfoParse(conninfo, errmsg);
    if (errmsg != NULL) *errmsg = strdup(lib.error);
    return NULL;
}
PGconn *PQconnectdb(const char *conninfo) { return ready() ? lib.connectdb(conninfo) : NULL; }
PGconn *PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    return ready() ? lib.connectdbParams(keywords, values, expand_dbname) : NULL;
}
/* Its messages are the C library's memory until libpq is open (PQconninfoParse's reason above). */
void PQfreemem(void *ptr) {
    if (ready()) {
        lib.freemem(ptr);
    } else {
        free(ptr);
    }
}

/* The rest take a connection or a result, which only libpq makes: libpq is open when they are called. */
int PQbackendPID(const PGconn *c) { return lib.backendPID(c); }
void PQclear(PGresult *r) { lib.clear(r); }
void PQconninfoFree(PQconninfoOption *o) { lib.conninfoFree(o); }
int PQconsumeInput(PGconn *c) { return lib.consumeInput(c); }
char *PQerrorMessage(const PGconn *c) { return lib.errorMessage(c); }
PGresult *PQexec(PGconn *c, const char *q) { return lib.exec(c, q); }
PGresult *PQexecParams(PGconn *c, const char *command, int n, const Oid *types, const char *const *values,
                       const int *lengths, const int *formats, int resultFormat) {
    return lib.execParams(c, command, n, types, values, lengths, formats, resultFormat);
}
void PQfinish(PGconn *c) { lib.finish(c); }
PGresult *PQgetResult(PGconn *c) { return lib.getResult(c); }
int PQgetisnull(const PGresult *r, int row, int field) { return lib.getisnull(r, row, field); }
int PQgetlength(const PGresult *r, int row, int field) { return lib.getlength(r, row, field); }
char *PQgetvalue(const PGresult *r, int row, int field) { return lib.getvalue(r, row, field); }
PGnotify *PQnotifies(PGconn *c) { return lib.notifies(c); }
int PQntuples(const PGresult *r) { return lib.ntuples(r); }
int PQputCopyData(PGconn *c, const char *buffer, int n) { return lib.putCopyData(c, buffer, n); }
int PQputCopyEnd(PGconn *c, const char *message) { return lib.putCopyEnd(c, message); }
void PQreset(PGconn *c) { lib.reset(c); }
char *PQresultErrorField(const PGresult *r, int code) { return lib.resultErrorField(r, code); }
char *PQresultErrorMessage(const PGresult *r) { return lib.resultErrorMessage(r); }
ExecStatusType PQresultStatus(const PGresult *r) { return lib.resultStatus(r); }
int PQsendQueryParams(PGconn *c, const char *command, int n, const Oid *types, const char *const *values,
                      const int *lengths, const int *formats, int resultFormat) {
    return lib.sendQueryParams(c, command, n, types, values, lengths, formats, resultFormat);
}
PQnoticeProcessor PQsetNoticeProcessor(PGconn *c, PQnoticeProcessor proc, void *arg) {
    return lib.setNoticeProcessor(c, proc, arg);
}
int PQsetSingleRowMode(PGconn *c) { return lib.setSingleRowMode(c); }
int PQsocket(const PGconn *c) { return lib.socket(c); }
ConnStatusType PQstatus(const PGconn *c) { return lib.status(c); }
PGTransactionStatusType PQtransactionStatus(const PGconn *c) { return lib.transactionStatus(c); }
