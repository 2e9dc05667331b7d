"""The phone's NotifBridge cryptography, written independently of the head
unit's Swift code so that each checks the other: X-Wing
(draft-connolly-cfrg-xwing-kem-06) on kyber-py's ML-KEM-768 and
`cryptography`'s X25519, the HPKE (RFC 9180) base-mode key schedule and
secret export for X-Wing / HKDF-SHA256 / AES-256-GCM, and the AES-GCM blob
(12-byte nonce | ciphertext | 16-byte tag, no AAD).

    python -m phone.notifbridge.xwing cases N        # N random cases as JSON lines (hex)
    python -m phone.notifbridge.xwing open KEY BLOB  # the plaintext (hex) of a blob the head unit sealed
"""

from __future__ import annotations

import json
import os
import sys

from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from kyber_py.ml_kem import ML_KEM_768

XWING_LABEL = b'\\.//^\\'
assert XWING_LABEL.hex() == '5c2e2f2f5e5c'

KEM_XWING, KDF_HKDF_SHA256, AEAD_AES_256_GCM = 0x647A, 0x0001, 0x0002


def _shake256(data: bytes, length: int) -> bytes:
    digest = hashes.Hash(hashes.SHAKE256(length))
    digest.update(data)
    return digest.finalize()


def _sha3_256(data: bytes) -> bytes:
    digest = hashes.Hash(hashes.SHA3_256())
    digest.update(data)
    return digest.finalize()


def _x25519(scalar: bytes, point: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(scalar).exchange(X25519PublicKey.from_public_bytes(point))


def _x25519_base(scalar: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(scalar).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


# -- X-Wing -----------------------------------------------------------------

def _expand(seed: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """(dk_M, sk_X, pk_M, pk_X) from the 32-byte seed."""
    if len(seed) != 32:
        raise ValueError('X-Wing seed must be 32 bytes')
    expanded = _shake256(seed, 96)
    # FIPS 203 §7.1 seed format d | z: KeyGen_internal(d, z).
    pk_m, dk_m = ML_KEM_768.key_derive(expanded[0:64])
    sk_x = expanded[64:96]
    return dk_m, sk_x, pk_m, _x25519_base(sk_x)


def public_key(seed: bytes) -> bytes:
    """pk = ek_M | X25519(sk_X, 9), 1216 bytes."""
    _, _, pk_m, pk_x = _expand(seed)
    return pk_m + pk_x


def _combine(ss_m: bytes, ss_x: bytes, ct_x: bytes, pk_x: bytes) -> bytes:
    return _sha3_256(ss_m + ss_x + ct_x + pk_x + XWING_LABEL)


def encapsulate(pk: bytes, eseed: bytes | None = None) -> tuple[bytes, bytes]:
    """(ss, enc = ct_M | ct_X) for the 1216-byte public key; 64 random bytes
    of eseed unless given (the draft's vectors give them)."""
    if len(pk) != 1216:
        raise ValueError('X-Wing public key must be 1216 bytes')
    eseed = os.urandom(64) if eseed is None else eseed
    pk_m, pk_x = pk[:1184], pk[1184:]
    ek_x = eseed[32:64]
    ct_x = _x25519_base(ek_x)
    ss_x = _x25519(ek_x, pk_x)
    # kyber-py has no public derandomised encapsulation; Encaps_internal(ek, m) it is (version pinned).
    ss_m, ct_m = ML_KEM_768._encaps_internal(pk_m, eseed[0:32])
    return _combine(ss_m, ss_x, ct_x, pk_x), ct_m + ct_x


def decapsulate(seed: bytes, enc: bytes) -> bytes:
    if len(enc) != 1120:
        raise ValueError('X-Wing encapsulated key must be 1120 bytes')
    dk_m, sk_x, _, pk_x = _expand(seed)
    ct_m, ct_x = enc[:1088], enc[1088:]
    return _combine(ML_KEM_768.decaps(dk_m, ct_m), _x25519(sk_x, ct_x), ct_x, pk_x)


# -- HPKE key schedule and export (RFC 9180 §5.1, §5.3) ----------------------

def suite_id(kem: int = KEM_XWING, kdf: int = KDF_HKDF_SHA256, aead: int = AEAD_AES_256_GCM) -> bytes:
    return b'HPKE' + kem.to_bytes(2, 'big') + kdf.to_bytes(2, 'big') + aead.to_bytes(2, 'big')


def _labeled_extract(suite: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    mac = hmac.HMAC(salt if salt else bytes(32), hashes.SHA256())
    mac.update(b'HPKE-v1' + suite + label + ikm)
    return mac.finalize()


def _labeled_expand(suite: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    labeled = length.to_bytes(2, 'big') + b'HPKE-v1' + suite + label + info
    return HKDFExpand(hashes.SHA256(), length, labeled).derive(prk)


def key_schedule(shared_secret: bytes, info: bytes, suite: bytes | None = None,
                 key_length: int = 32, nonce_length: int = 12) -> dict[str, bytes]:
    """Base mode (mode 0, empty psk and psk_id): key, base_nonce, exporter_secret."""
    suite = suite_id() if suite is None else suite
    psk_id_hash = _labeled_extract(suite, b'', b'psk_id_hash', b'')
    info_hash = _labeled_extract(suite, b'', b'info_hash', info)
    context = bytes([0]) + psk_id_hash + info_hash
    secret = _labeled_extract(suite, shared_secret, b'secret', b'')
    return {
        'key_schedule_context': context,
        'key': _labeled_expand(suite, secret, b'key', context, key_length),
        'base_nonce': _labeled_expand(suite, secret, b'base_nonce', context, nonce_length),
        'exporter_secret': _labeled_expand(suite, secret, b'exp', context, 32),
    }


def export(exporter_secret: bytes, context: bytes, length: int = 32, suite: bytes | None = None) -> bytes:
    return _labeled_expand(suite_id() if suite is None else suite, exporter_secret, b'sec', context, length)


# -- AES-256-GCM blobs --------------------------------------------------------

def seal(key: bytes, plaintext: bytes, nonce: bytes | None = None) -> bytes:
    nonce = os.urandom(12) if nonce is None else nonce
    return nonce + AESGCM(key).encrypt(nonce, plaintext, None)


def open_blob(key: bytes, blob: bytes) -> bytes:
    """Raises cryptography.exceptions.InvalidTag when the blob was altered."""
    return AESGCM(key).decrypt(blob[:12], blob[12:], None)


# -- Random cases for the cross-implementation test ---------------------------

def random_case() -> dict[str, str]:
    """Everything the phone does for one key and one envelope, with fresh
    randomness: the head unit must reach the same secret, key and plaintext."""
    seed = os.urandom(32)
    pk = public_key(seed)
    ss, enc = encapsulate(pk)
    identifier = os.urandom(8).hex().upper()
    info = f'XWing-Version1-{identifier}'.encode()
    session = '-'.join(os.urandom(n).hex().upper() for n in (4, 2, 2, 2, 6))
    context = info + b'-HostToAccessory-' + session.encode()
    exporter_secret = key_schedule(ss, info)['exporter_secret']
    key = export(exporter_secret, context)
    plaintext = os.urandom(1 + os.urandom(1)[0] * 4)
    return {
        'seed': seed.hex(), 'publicKey': pk.hex(), 'encapsulatedKey': enc.hex(), 'sharedSecret': ss.hex(),
        'info': info.hex(), 'context': context.hex(), 'exporterSecret': exporter_secret.hex(),
        'exportedKey': key.hex(), 'plaintext': plaintext.hex(), 'sealed': seal(key, plaintext).hex(),
    }


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == 'cases' and argv[1].isdigit():
        for _ in range(int(argv[1])):
            print(json.dumps(random_case()), flush=True)
        return 0
    if len(argv) == 3 and argv[0] == 'open':
        print(open_blob(bytes.fromhex(argv[1]), bytes.fromhex(argv[2])).hex())
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
