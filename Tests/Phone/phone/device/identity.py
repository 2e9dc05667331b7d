"""What makes a simulated phone the same phone across launches.

A phone app generates its SERVER NAME once and keeps it; the phone itself has a
fixed identity address and IRK and advertises with resolvable private addresses
derived from the IRK. With a state directory these are stored in phones.json and
reused; without one they are new on every run.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import secrets
import tempfile

from bumble import hci

logger = logging.getLogger(__name__)

# An Apple organisationally unique identifier: iPhones have public identity addresses.
_APPLE_OUI = (0xF0, 0x99, 0xB6)


@dataclasses.dataclass
class PhoneIdentity:
    server_name: str
    identity_address: str
    irk: bytes

    def to_json(self) -> dict:
        return {
            'server_name': self.server_name,
            'identity_address': self.identity_address,
            'irk': self.irk.hex(),
        }

    @classmethod
    def from_json(cls, data: dict) -> PhoneIdentity:
        return cls(
            server_name=str(data['server_name']),
            identity_address=str(data['identity_address']),
            irk=bytes.fromhex(data['irk']),
        )


def default_server_name(name: str) -> str:
    """Like the app does it: owner, model, four random hex digits ("Anna-iPhone-7F3A")."""
    owner = (name[:1].upper() + name[1:]) if name else 'Phone'
    suffix = secrets.token_hex(2).upper()
    base = f'{owner}-iPhone-'
    # Keep within the 32-byte limit even for a long owner name.
    room = 32 - len(suffix.encode()) - len(base.encode())
    if room < 0:
        base = base.encode('utf-8')[: 32 - len(suffix)].decode('utf-8', 'ignore')
    return base + suffix


def new_identity(name: str) -> PhoneIdentity:
    tail = secrets.token_bytes(3)
    address = ':'.join(f'{b:02X}' for b in (*_APPLE_OUI, *tail))
    return PhoneIdentity(default_server_name(name), address, secrets.token_bytes(16))


def resolvable_private_address(irk: bytes) -> hci.Address:
    return hci.Address.generate_private_address(irk)


class IdentityStore:
    """phones.json in the state directory, or nothing without one."""

    def __init__(self, directory: str | None) -> None:
        self.path = os.path.join(directory, 'phones.json') if directory else None
        self._data: dict[str, dict] = {}
        if self.path and os.path.exists(self.path):
            try:
                with open(self.path, encoding='utf-8') as file:
                    self._data = json.load(file)
            except (OSError, ValueError) as error:
                logger.error('cannot read %s (%s): starting with new identities', self.path, error)
                self._data = {}

    def identity(self, name: str) -> PhoneIdentity:
        entry = self._data.get(name)
        if entry is not None:
            try:
                return PhoneIdentity.from_json(entry)
            except (KeyError, ValueError) as error:
                logger.error('bad stored identity for %s (%s): making a new one', name, error)
        identity = new_identity(name)
        self.save(name, identity)
        return identity

    def save(self, name: str, identity: PhoneIdentity) -> None:
        self._data[name] = {**self._data.get(name, {}), **identity.to_json()}
        self._write()

    def extra(self, name: str, key: str, default=None):
        return self._data.get(name, {}).get(key, default)

    def set_extra(self, name: str, key: str, value) -> None:
        self._data.setdefault(name, {})[key] = value
        self._write()

    def _write(self) -> None:
        if not self.path:
            return
        directory = os.path.dirname(self.path)
        os.makedirs(directory, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix='.phones.')
        with os.fdopen(handle, 'w', encoding='utf-8') as file:
            json.dump(self._data, file, indent=2, sort_keys=True)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)
