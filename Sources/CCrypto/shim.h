#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
/* A missing header names the Debian package that provides it (tools/bootstrap installs it). */
#if !__has_include(<openssl/sha.h>)
#error "openssl/sha.h not found: install the Debian package libssl-dev (or run tools/bootstrap)"
#endif
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#endif
