// OpenSSL libcrypto: AES, CMAC and P-256 ECDH for the Security Manager.
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
#endif
