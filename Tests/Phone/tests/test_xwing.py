"""The phone's X-Wing / HPKE / AES-GCM (phone.notifbridge.xwing) against the
same published vectors the head unit's Swift code is checked with
(Tests/HPKETests/Vectors: the X-Wing draft-06 vectors, RFC 9180 Appendix A)."""

from __future__ import annotations

import os
import unittest

import harness  # noqa: F401 - puts the package on sys.path
from cryptography.exceptions import InvalidTag

from phone.notifbridge import xwing

VECTORS = os.path.join(os.path.dirname(__file__), '..', '..', 'HPKETests', 'Vectors')


def read_cases(name: str) -> list[dict[str, str]]:
    """Blank-line separated blocks of `name = value` lines; `#` lines are comments."""
    cases: list[dict[str, str]] = []
    current: dict[str, str] = {}
    with open(os.path.join(VECTORS, name), encoding='utf-8') as file:
        for line in file:
            line = line.strip()
            if line.startswith('#'):
                continue
            if not line:
                if current:
                    cases.append(current)
                current = {}
                continue
            name_, _, value = line.partition('=')
            current[name_.strip()] = value.strip()
    if current:
        cases.append(current)
    return cases


class XWingDraftVectors(unittest.TestCase):
    def setUp(self) -> None:
        self.vectors = read_cases('xwing.txt')
        self.assertEqual(len(self.vectors), 3)

    def test_public_key_from_seed(self) -> None:
        for v in self.vectors:
            self.assertEqual(xwing.public_key(bytes.fromhex(v['seed'])).hex(), v['pk'])

    def test_encapsulation_with_given_eseed(self) -> None:
        for v in self.vectors:
            ss, enc = xwing.encapsulate(bytes.fromhex(v['pk']), bytes.fromhex(v['eseed']))
            self.assertEqual(enc.hex(), v['ct'])
            self.assertEqual(ss.hex(), v['ss'])

    def test_decapsulation(self) -> None:
        for v in self.vectors:
            self.assertEqual(xwing.decapsulate(bytes.fromhex(v['seed']), bytes.fromhex(v['ct'])).hex(), v['ss'])


class RFC9180KeySchedule(unittest.TestCase):
    def test_base_mode_vectors(self) -> None:
        lines = [line.strip() for line in open(os.path.join(VECTORS, 'rfc9180-key-schedule.txt'), encoding='utf-8')]
        suites: list[dict] = []
        context = b''
        for line in lines:
            if not line or line.startswith('#'):
                continue
            name, _, value = (part.strip() for part in line.partition('='))
            if name == 'kem_id':
                suites.append({'exports': []})
            if name == 'exporter_context':
                context = bytes.fromhex(value)
            elif name == 'exported_value':
                suites[-1]['exports'].append((context, bytes.fromhex(value)))
            elif name != 'L':
                suites[-1][name] = value
        self.assertEqual(len(suites), 2)
        for s in suites:
            suite = xwing.suite_id(int(s['kem_id']), int(s['kdf_id']), int(s['aead_id']))
            schedule = xwing.key_schedule(bytes.fromhex(s['shared_secret']), bytes.fromhex(s['info']), suite,
                                          key_length=len(s['key']) // 2)
            for name in ('key_schedule_context', 'key', 'base_nonce', 'exporter_secret'):
                self.assertEqual(schedule[name].hex(), s[name], name)
            self.assertEqual(len(s['exports']), 3)
            for context, value in s['exports']:
                self.assertEqual(xwing.export(schedule['exporter_secret'], context, 32, suite), value)


class Blobs(unittest.TestCase):
    def test_round_trip_and_tamper(self) -> None:
        key = os.urandom(32)
        blob = xwing.seal(key, b'{"version":3}')
        self.assertEqual(len(blob), 12 + 13 + 16)
        self.assertEqual(xwing.open_blob(key, blob), b'{"version":3}')
        tampered = bytearray(blob)
        tampered[20] ^= 1
        with self.assertRaises(InvalidTag):
            xwing.open_blob(key, bytes(tampered))

    def test_random_case_is_consistent(self) -> None:
        case = xwing.random_case()
        ss = xwing.decapsulate(bytes.fromhex(case['seed']), bytes.fromhex(case['encapsulatedKey']))
        self.assertEqual(ss.hex(), case['sharedSecret'])
        key = bytes.fromhex(case['exportedKey'])
        self.assertEqual(xwing.open_blob(key, bytes.fromhex(case['sealed'])).hex(), case['plaintext'])


if __name__ == '__main__':
    unittest.main()
