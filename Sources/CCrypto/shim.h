// OpenSSL libcrypto: AES, CMAC and P-256 ECDH for the Security Manager;
// SHA3/SHAKE, X25519, HMAC-SHA256 and AES-256-GCM for NotifBridge (HPKE).
#ifndef NN_CCRYPTO_SHIM_H
#define NN_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdh.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>

/* Key selections are composite macros that Swift does not import. */
static inline int nn_evp_pkey_keypair_selection(void) { return EVP_PKEY_KEYPAIR; }
static inline int nn_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }
#endif
