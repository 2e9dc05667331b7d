"""The iPhone as central: Settings → Bluetooth, and what iOS does with an accessory.

The other way every ANCS accessory works (docs/PROTOCOL.md §7 for the phone's side
of the NavigationNotifier routine): the accessory advertises, asking for ANCS; the
user opens Settings → Bluetooth, which scans (actively, for the names) and lists it
(accessories.py); tapping it connects, and iOS as the initiator then

- sends its own ATT Exchange MTU (185 by default; 293 on some models);
- pairs with its usual parameters (security.py: Keyboard+Display, Secure
  Connections, MITM, bonding, its IRK and public identity distributed, CT2), from
  its resolvable private address; the accessory's passkey is typed with
  `type_passkey`, as in the NavigationNotifier routine;
- answers a Security Request: encryption with the bond's key if bonded, pairing if
  not (central_host.answer_security_requests);
- asks "Allow <accessory> to receive your notifications?": until the user allows,
  subscribing to ANCS is refused with Insufficient Authorization (0x08).

A bonded accessory is reconnected by iOS on its own whenever it is heard
advertising (its RPA resolved with the IRK it gave), then encrypted with the bond.
Settings scanning runs while Settings is open; the reconnection scan whenever an
accessory bond exists and that accessory is not connected.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Callable

from bumble import att, hci

from ..controller.central_host import answer_security_requests, connect_advertiser
from .accessories import Accessory, parse

logger = logging.getLogger(__name__)

INSUFFICIENT_AUTHORIZATION = 0x08
PROMPT_MODES = ('allow', 'ask', 'deny')
# Settings scans often and long, as iOS does with the Bluetooth screen open.
SCAN_INTERVAL_MS = 30.0
SCAN_WINDOW_MS = 30.0
# An accessory not heard for this long drops off the list (a bonded one stays).
LIST_TIMEOUT_S = 10.0
# After a reconnection attempt failed, the next waits this long.
RECONNECT_BACKOFF_S = 1.0


def _text(address: hci.Address) -> str:
    return address.to_string(with_type_qualifier=False)


class SettingsBluetooth:
    def __init__(self, phone, emit: Callable[..., None], prompt: str = 'allow', path: str | None = None) -> None:
        if prompt not in PROMPT_MODES:
            raise ValueError(f'notification prompt is one of {", ".join(PROMPT_MODES)}')
        self.phone = phone
        self.emit = emit
        self.prompt = prompt
        # Where the accessory bonds and prompt answers persist (with `--state`).
        self.path = path
        self.open = False
        self.accessories: dict[str, Accessory] = {}
        # Identity addresses of accessories this phone bonded with as the central.
        self.bonded: set[str] = set()
        # "Allow notifications?" per accessory identity: allowed, pending, denied.
        self.notification_access: dict[str, str] = {}
        self._connecting = False
        self._securing: set[int] = set()
        # Links tapped with `secure=False`: a device that only holds the
        # connection (a hostile central; iOS always secures what it taps).
        self._holding: set[int] = set()
        self._retry_at: dict[str, float] = {}
        # Set when an accessory is found or its row changes (`open_settings` waits on it).
        self._found = asyncio.Event()
        # Scanning is switched from several tasks (links coming and going, Settings).
        self._scan_lock = asyncio.Lock()

    @property
    def device(self):
        return self.phone.device

    # ---------------------------------------------------------- persistence
    def load(self, bonded_identities: set[str]) -> None:
        """Accessory bonds saved earlier, as far as their keys are still stored."""
        if not self.path or not os.path.exists(self.path):
            return
        try:
            with open(self.path, encoding='utf-8') as file:
                saved = json.load(file)
            self.bonded = set(saved.get('bonded', [])) & bonded_identities
            access = saved.get('notification_access', {})
            self.notification_access = {k: v for k, v in access.items() if k in self.bonded}
        except (OSError, ValueError, AttributeError, TypeError) as error:
            logger.warning('[%s] ignoring unreadable %s: %r', self.phone.name, self.path, error)

    def _save(self) -> None:
        if not self.path:
            return
        temporary = self.path + '.tmp'
        with open(temporary, 'w', encoding='utf-8') as file:
            json.dump({'bonded': sorted(self.bonded), 'notification_access': self.notification_access}, file, indent=1)
        os.replace(temporary, self.path)

    # ------------------------------------------------------------- scanning
    def wants_scan(self) -> bool:
        if not self.phone.powered:
            return False
        return self.open or any(not self.connection_to(identity) for identity in self.bonded)

    async def update_scanning(self) -> None:
        """Scan when Settings is open or a bonded accessory is away; not otherwise."""
        device = self.device
        async with self._scan_lock:
            if self.wants_scan() and not device.scanning:
                await device.start_scanning(
                    legacy=True,
                    active=True,
                    scan_interval=SCAN_INTERVAL_MS,
                    scan_window=SCAN_WINDOW_MS,
                    filter_duplicates=False,
                )
            elif not self.wants_scan() and device.scanning:
                await device.stop_scanning()

    async def pause_scanning(self) -> bool:
        """Stop scanning (the random address can only change while not scanning);
        returns whether it was on."""
        async with self._scan_lock:
            if self.device.scanning:
                await self.device.stop_scanning()
                return True
            return False

    def on_advertisement(self, advertisement) -> None:
        # Bumble joins a scan response to its advertisement in `data` (its
        # `data_bytes` holds the last report alone).
        heard = parse(bytes(advertisement.data))
        address = advertisement.address
        identity = self._identity_of(address)
        key = identity or _text(address)
        accessory = self.accessories.get(key)
        if accessory is None:
            if not (heard.ancs or heard.hid):
                return
            accessory = Accessory(address=_text(address), identity=identity)
            accessory.public = address.address_type == hci.Address.PUBLIC_DEVICE_ADDRESS
            self.accessories[key] = accessory
            accessory.update(heard, advertisement.rssi)
            self.emit('accessory_found', **self.describe(accessory))
            self._found.set()
        else:
            before = (accessory.name, accessory.ancs, accessory.hid)
            accessory.address = _text(address)
            accessory.public = address.address_type == hci.Address.PUBLIC_DEVICE_ADDRESS
            accessory.update(heard, advertisement.rssi)
            if (accessory.name, accessory.ancs, accessory.hid) != before:
                # A row of the list changed: whoever waits for a name looks again.
                self._found.set()
                if before[0] is not None and accessory.name != before[0]:
                    # The row's name changed under the user's eyes.
                    self.emit('accessory_renamed', **self.describe(accessory), before=before[0])
        if identity in self.bonded and not self.connection_to(identity) and not self._connecting:
            self.phone.spawn(self._reconnect(identity, address))

    def _identity_of(self, address: hci.Address) -> str | None:
        """The identity of a bonded accessory advertising with `address`, or None."""
        text = _text(address)
        if text in self.bonded:
            return text
        resolver = self.device.address_resolver
        if address.is_resolvable and resolver is not None:
            resolved = resolver.resolve(address)
            if resolved is not None and _text(resolved) in self.bonded:
                return _text(resolved)
        return None

    def describe(self, accessory: Accessory) -> dict:
        key = accessory.identity or accessory.address
        return accessory.describe(bonded=key in self.bonded, connected=self.connection_to(key) is not None)

    def _shown(self) -> dict[str, Accessory]:
        """What Settings shows: accessories heard lately, and bonded ones."""
        now = time.monotonic()
        return {
            key: accessory
            for key, accessory in self.accessories.items()
            if accessory.listed and (key in self.bonded or now - accessory.last_seen < LIST_TIMEOUT_S)
        }

    def listed(self) -> list[dict]:
        return [self.describe(accessory) for accessory in self._shown().values()]

    async def open_settings(self, wait: float = 0.0, name: str | None = None) -> list[dict]:
        """Settings → Bluetooth is opened (scanning starts); waits up to `wait`
        seconds for an accessory (called `name`, if given) to be listed."""
        self.open = True
        await self.update_scanning()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while not any(name is None or a.is_called(name) for a in self._shown().values()):
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            self._found.clear()
            try:
                await asyncio.wait_for(self._found.wait(), remaining)
            except asyncio.TimeoutError:
                break
        return self.listed()

    async def close_settings(self) -> None:
        self.open = False
        await self.update_scanning()

    # ----------------------------------------------------------- connecting
    def connection_to(self, identity_or_address: str):
        for connection in self.phone.connections.values():
            if connection.role != hci.Role.CENTRAL:
                continue
            addresses = {_text(connection.peer_address)}
            if connection.peer_resolvable_address is not None:
                addresses.add(_text(connection.peer_resolvable_address))
            if identity_or_address.upper() in addresses:
                return connection
        return None

    def find(self, address: str | None = None, name: str | None = None) -> Accessory:
        for key, accessory in self._shown().items():
            if address is not None and address.upper() in (key.upper(), accessory.address.upper()):
                return accessory
            if address is None and name is not None and accessory.is_called(name):
                return accessory
        raise LookupError(f'no accessory {address or name!r} in Settings → Bluetooth')

    async def tap(self, address: str | None = None, name: str | None = None, timeout: float = 5.0, secure: bool = True):
        """The user taps the accessory: connect, then pair (or encrypt, if bonded).
        With `secure` false the phone only holds the link: it never pairs or
        encrypts on it and ignores the accessory's Security Requests."""
        accessory = self.find(address, name)
        key = accessory.identity or accessory.address
        if self.connection_to(key) is not None:
            raise RuntimeError('already connected to that accessory')
        address_type = hci.Address.PUBLIC_DEVICE_ADDRESS if accessory.public else hci.Address.RANDOM_DEVICE_ADDRESS
        connection = await self.connect(hci.Address(accessory.address, address_type), timeout)
        if secure:
            self.phone.spawn(self.secure(connection))
        else:
            self._holding.add(connection.handle)
        return connection

    async def connect(self, address: hci.Address, timeout: float = 5.0):
        """Connect to an accessory advertising with `address`; pairing or encryption
        is left to the caller (`secure`) or to the accessory's Security Request."""
        if self._connecting:
            raise RuntimeError('a connection is being made already')
        self._connecting = True
        try:
            return await connect_advertiser(self.device, address, timeout)
        finally:
            self._connecting = False

    async def _reconnect(self, identity: str, address: hci.Address) -> None:
        if self._connecting or self.connection_to(identity):
            return
        if time.monotonic() < self._retry_at.get(identity, 0.0):
            return
        self.emit('reconnecting', peer=identity, address=_text(address))
        try:
            connection = await self.connect(address, 5.0)
        except Exception as error:  # noqa: BLE001 - a later advertisement tries again
            logger.debug('[%s] reconnection to %s failed: %r', self.phone.name, identity, error)
            self._retry_at[identity] = time.monotonic() + RECONNECT_BACKOFF_S
            return
        await self.secure(connection)

    async def secure(self, connection) -> None:
        """Pair with a new accessory, encrypt with a bonded one; once per link at a time."""
        if connection.handle in self._securing or connection.handle in self._holding or connection.encryption:
            return
        self._securing.add(connection.handle)
        try:
            if self.is_bonded(connection):
                await connection.encrypt()
            else:
                await connection.pair()
        except Exception as error:  # noqa: BLE001 - pairing_failed / encryption_failed tell
            logger.debug('[%s] securing %s ended: %r', self.phone.name, connection.peer_address, error)
        finally:
            self._securing.discard(connection.handle)

    def is_bonded(self, connection) -> bool:
        return str(connection.peer_address) in self.phone.security.bonds

    # ------------------------------------------------- a new accessory link
    def attach(self, connection) -> None:
        """Called for every link on which the phone is the central."""
        answer_security_requests(
            self.device,
            connection,
            self.is_bonded,
            self.secure,
            lambda answer: self.emit(
                'security_request', peer=_text(connection.peer_address),
                answer='ignored' if connection.handle in self._holding else answer,
            ),
        )
        connection.on('pairing', lambda keys: self._on_bonded(connection, keys))
        connection.on('disconnection', lambda _reason: self._link_gone(connection))
        self.phone.spawn(self.update_scanning())

    def _link_gone(self, connection) -> None:
        self._holding.discard(connection.handle)
        self.phone.spawn(self.update_scanning())

    def _on_bonded(self, connection, keys) -> None:
        identity = _text(connection.peer_address)
        self.bonded.add(identity)
        for key, accessory in list(self.accessories.items()):
            if key == accessory.address and accessory.address in (
                identity, _text(connection.peer_resolvable_address or connection.peer_address)
            ):
                accessory.identity = identity
                self.accessories[identity] = self.accessories.pop(key)
        access = {'allow': 'allowed', 'ask': 'pending', 'deny': 'denied'}[self.prompt]
        self.notification_access[identity] = access
        self.emit('notification_prompt', peer=identity, state=access)
        self._save()
        self.phone.spawn(self.update_scanning())

    async def forget(self, identity: str) -> None:
        """Forget This Device: the link goes, no reconnection any more."""
        self.bonded.discard(identity)
        self.notification_access.pop(identity, None)
        self._save()
        connection = self.connection_to(identity)
        if connection is not None:
            try:
                await connection.disconnect(0x13)
            except Exception as error:  # noqa: BLE001 - already gone
                logger.debug('[%s] disconnect on forget: %r', self.phone.name, error)
        await self.update_scanning()

    # ------------------------------------------------- notification access
    def authorized(self, connection) -> bool:
        """ANCS for this link: links the head unit made (the NavigationNotifier
        routine) are not asked; an accessory only once the user allowed it."""
        if connection is None or connection.role != hci.Role.CENTRAL:
            return True
        return self.notification_access.get(_text(connection.peer_address)) == 'allowed'

    def allow(self, allow: bool, peer: str | None = None) -> list[str]:
        """The user answers the prompt for one accessory (or every one asking)."""
        answered = []
        for identity, state in self.notification_access.items():
            if peer is None and state != 'pending':
                continue
            if peer is not None and identity.upper() != peer.upper():
                continue
            self.notification_access[identity] = 'allowed' if allow else 'denied'
            answered.append(identity)
            self.emit('notification_prompt', peer=identity, state=self.notification_access[identity])
        self._save()
        return answered

    def require_authorization(self, attributes) -> None:
        """Wrap the ANCS attributes' writes (CCCDs, Control Point) with the check;
        call before gatt_policy wraps them, so that 0x05/0x0F come first."""
        for attribute in attributes:
            original_write = attribute.write_value

            async def write_value(bearer, value, original_write=original_write, attribute=attribute) -> None:
                connection = bearer.connection if att.is_enhanced_bearer(bearer) else bearer
                if not self.authorized(connection):
                    raise att.ATT_Error(INSUFFICIENT_AUTHORIZATION, attribute.handle)
                await original_write(bearer, value)

            attribute.write_value = write_value

    def state(self) -> dict:
        return {
            'settings_open': self.open,
            'accessory_bonds': sorted(self.bonded),
            'notification_access': dict(self.notification_access),
        }
