#ifndef PHOTOS_CCRYPTO_SHIM_H
#define PHOTOS_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto: SHA-256 of originals (FIPS 180-4), with the CPU's SHA extensions where present. */
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#endif
