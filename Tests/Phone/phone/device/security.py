"""The phone's side of LE security, as an iPhone behaves.

- IO capability Keyboard+Display, Secure Connections, MITM and bonding requested;
  the phone distributes its IRK and public identity address and takes the head
  unit's (docs/PROTOCOL.md §1 rule 8: after bonding the IRK is the identity).
- Passkey entry where the head unit displays and the user types on the phone:
  the test types the digits with `type_passkey`. Nothing typed within the SMP
  timeout (30 s) fails the pairing with Passkey Entry Failed.
- Just Works and numeric comparison show iOS's dialog: answered at once in `auto`
  mode, by `confirm_pairing` in `manual` mode, refused in `reject` mode.
- Bonds are kept (in memory, or in the state directory) and can be forgotten like
  "Forget This Device"; the head unit's next encryption attempt then fails with
  PIN or Key Missing.
- A bonded client's subscriptions (CCCD values) persist across connections, as the
  Core specification requires (Vol 3, Part G, 3.3.3.3); Bumble forgets them at every
  disconnection. They are kept in memory for the simulator's lifetime.

Corrections to Bumble: MITM is taken from the pairing method (Bumble's
`connection.authenticated` is true after Just Works); a failed pairing detaches its
SMP session so that the head unit can retry on the same link (Bumble keeps the dead
session, and a retry goes nowhere).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable

from bumble import hci
from bumble.pairing import PairingConfig, PairingDelegate

from .gatt_policy import LinkSecurity

logger = logging.getLogger(__name__)

SMP_TIMEOUT = 30.0

PAIRING_MODES = ('auto', 'manual', 'reject')


class _Passkey(int):
    """Correction: Bumble's SMP asserts `self.passkey` is truthy, so the valid
    passkey 000000 aborts its pairing. An iPhone takes 000000 like any other
    code; this int is true even when it is zero."""

    def __bool__(self) -> bool:
        return True


def _text(address: hci.Address) -> str:
    return address.to_string(with_type_qualifier=False)


@dataclasses.dataclass
class Bond:
    authenticated: bool
    secure_connections: bool


class PhonePairingDelegate(PairingDelegate):
    """One pairing on one connection, answered the way the phone's user would."""

    def __init__(self, security: PhoneSecurity, connection) -> None:
        distribution = (
            PairingDelegate.KeyDistribution.DISTRIBUTE_ENCRYPTION_KEY
            | PairingDelegate.KeyDistribution.DISTRIBUTE_IDENTITY_KEY
        )
        super().__init__(
            io_capability=PairingDelegate.IoCapability.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT,
            local_initiator_key_distribution=distribution,
            local_responder_key_distribution=distribution,
        )
        self.security = security
        self.connection = connection
        self.method = 'just-works'

    async def accept(self) -> bool:
        self.security.emit('pairing_request', peer=_text(self.connection.peer_address))
        return self.security.mode != 'reject'

    async def confirm(self, auto: bool = False) -> bool:
        self.method = 'just-works'
        return await self.security.ask_user('pairing_confirm', self.connection)

    async def compare_numbers(self, number: int, digits: int) -> bool:
        self.method = 'numeric'
        return await self.security.ask_user('numeric_comparison', self.connection, number=f'{number:0{digits}d}')

    async def get_number(self) -> int | None:
        self.method = 'passkey'
        return await self.security.wait_for_passkey(self.connection)

    async def display_number(self, number: int, digits: int) -> None:
        # The head unit has the keyboard: the phone shows the passkey.
        self.method = 'passkey'
        self.security.emit('passkey_display', peer=_text(self.connection.peer_address), passkey=f'{number:0{digits}d}')


class PhoneSecurity:
    def __init__(self, device_provider: Callable[[], object], emit: Callable[..., None], mode: str = 'auto') -> None:
        if mode not in PAIRING_MODES:
            raise ValueError(f'pairing mode must be one of {", ".join(PAIRING_MODES)}')
        self._device = device_provider
        self.emit = emit
        self.mode = mode
        self.bonds: dict[str, Bond] = {}
        self._delegates: dict[int, PhonePairingDelegate] = {}
        self._passkeys: dict[int, asyncio.Future] = {}
        self._answers: dict[int, asyncio.Future] = {}
        self._saved_cccds: dict[str, dict[int, bytes]] = {}

    # ------------------------------------------------------------- Bumble glue
    def pairing_config(self, connection) -> PairingConfig:
        delegate = PhonePairingDelegate(self, connection)
        self._delegates[connection.handle] = delegate
        return PairingConfig(
            sc=True,
            mitm=True,
            bonding=True,
            delegate=delegate,
            identity_address_type=PairingConfig.AddressType.PUBLIC,
        )

    def link_security(self) -> LinkSecurity:
        return LinkSecurity(
            encrypted=lambda connection: bool(getattr(connection, 'encryption', 0)),
            authenticated=self._authenticated,
            bonded=lambda connection: str(connection.peer_address) in self.bonds,
        )

    def _authenticated(self, connection) -> bool:
        bond = self.bonds.get(str(connection.peer_address))
        return bool(getattr(connection, 'encryption', 0)) and bond is not None and bond.authenticated

    def attach(self, connection) -> None:
        """Follow pairing and encryption on a new connection."""
        connection.on('pairing', lambda keys: self._on_pairing(connection, keys))
        connection.on('pairing_failure', lambda reason: self._on_pairing_failure(connection, reason))
        connection.on('connection_encryption_change', lambda: self._on_encryption_change(connection))
        connection.on('connection_encryption_failure', lambda error: self._on_encryption_failure(connection, error))
        connection.on('disconnection', lambda _reason: self._forget_connection(connection))
        saved = self._saved_cccds.get(str(connection.peer_address))
        if saved and str(connection.peer_address) in self.bonds:
            self._device().gatt_server.subscribers[connection] = dict(saved)

    async def load_bonds(self) -> None:
        keystore = self._device().keystore
        if keystore is None:
            return
        for name, keys in await keystore.get_all():
            key = keys.ltk or keys.ltk_central or keys.ltk_peripheral
            self.bonds[name] = Bond(authenticated=bool(key and key.authenticated), secure_connections=keys.ltk is not None)

    # ---------------------------------------------------------- user actions
    async def ask_user(self, dialog: str, connection, **fields) -> bool:
        self.emit(dialog, peer=_text(connection.peer_address), **fields)
        if self.mode == 'auto':
            return True
        if self.mode == 'reject':
            return False
        future = asyncio.get_running_loop().create_future()
        self._answers[connection.handle] = future
        try:
            return bool(await asyncio.wait_for(future, SMP_TIMEOUT))
        except asyncio.TimeoutError:
            return False
        finally:
            self._answers.pop(connection.handle, None)

    def confirm(self, accept: bool) -> int:
        """Answer every open pairing dialog; returns how many there were."""
        open_dialogs = [f for f in self._answers.values() if not f.done()]
        for future in open_dialogs:
            future.set_result(accept)
        return len(open_dialogs)

    async def wait_for_passkey(self, connection) -> int | None:
        self.emit('passkey_requested', peer=_text(connection.peer_address))
        if self.mode == 'reject':
            return None
        future = asyncio.get_running_loop().create_future()
        self._passkeys[connection.handle] = future
        try:
            return _Passkey(await asyncio.wait_for(future, SMP_TIMEOUT))
        except asyncio.TimeoutError:
            self.emit('error', what='passkey_timeout', detail='no passkey typed within the SMP timeout')
            return None
        finally:
            self._passkeys.pop(connection.handle, None)

    def type_passkey(self, digits) -> int:
        """The user types the passkey the head unit shows; returns how many pairings
        were waiting for one."""
        text = str(digits).strip()
        if not (text.isdigit() and len(text) <= 6):
            raise ValueError('a passkey is up to 6 decimal digits')
        waiting = [f for f in self._passkeys.values() if not f.done()]
        for future in waiting:
            future.set_result(int(text))
        return len(waiting)

    async def forget_bond(self, peer: str | None = None) -> list[str]:
        """Forget one bond (by peer identity address) or all; returns what was forgotten."""
        device = self._device()
        forgotten = []
        for name in list(self.bonds):
            if peer is None or name.split('/')[0].upper() == peer.upper():
                del self.bonds[name]
                self._saved_cccds.pop(name, None)
                if device.keystore is not None:
                    await device.keystore.delete(name)
                forgotten.append(name.split('/')[0])
        if forgotten and device.keystore is not None:
            await device.refresh_resolving_list()
        for name in forgotten:
            self.emit('bond_forgotten', peer=name)
        return forgotten

    def request_security(self, connection) -> None:
        """Send an SMP Security Request, as iOS does when an app needs encryption."""
        self._device().request_pairing(connection)

    # -------------------------------------------------------------- callbacks
    def _on_pairing(self, connection, keys) -> None:
        delegate = self._delegates.get(connection.handle)
        method = delegate.method if delegate else 'just-works'
        key = keys.ltk or keys.ltk_central or keys.ltk_peripheral
        mitm = bool(key and key.authenticated)
        secure_connections = bool(getattr(connection, 'sc', False))
        self.bonds[str(connection.peer_address)] = Bond(authenticated=mitm, secure_connections=secure_connections)
        self.emit(
            'paired',
            peer=_text(connection.peer_address),
            method=method,
            secure_connections=secure_connections,
            mitm=mitm,
            bonded=True,
            peer_irk=keys.irk.value.hex() if keys.irk else None,
        )

    def _on_pairing_failure(self, connection, reason: int) -> None:
        # Correction: detach the failed session so a retry on this link starts afresh.
        device = self._device()
        device.smp_manager.sessions.pop(connection.handle, None)
        self.emit('pairing_failed', peer=_text(connection.peer_address), reason=int(reason))

    def _on_encryption_change(self, connection) -> None:
        encrypted = bool(connection.encryption)
        self.emit(
            'encrypted',
            peer=_text(connection.peer_address),
            encrypted=encrypted,
            bonded=str(connection.peer_address) in self.bonds,
            authenticated=self._authenticated(connection),
        )

    def _on_encryption_failure(self, connection, error) -> None:
        self.emit('encryption_failed', peer=_text(connection.peer_address), reason=int(getattr(error, 'error_code', 0) or 0))

    def _forget_connection(self, connection) -> None:
        # Called before Bumble's server drops the connection's subscriptions.
        name = str(connection.peer_address)
        if name in self.bonds:
            self._saved_cccds[name] = dict(self._device().gatt_server.subscribers.get(connection, {}))
        self._delegates.pop(connection.handle, None)
        for table in (self._passkeys, self._answers):
            future = table.pop(connection.handle, None)
            if future is not None and not future.done():
                future.cancel()
