"""Apple Notification Center Service and Apple Media Service: the GATT shape and the
security of the real ones (docs/PROTOCOL.md §2, §3), and the link between them and the
phone's GATT server.

Bumble's `profiles.ancs` / `profiles.ams` servers are placeholders with properties
that differ from Apple's; these declare the characteristics as iOS does. Every
characteristic value and its CCCD requires an encrypted link with a bonded peer:
before pairing a client gets Insufficient Authentication (0x05), after bonding but
before encryption Insufficient Encryption (0x0F) — see gatt_policy.py.

What the characteristics do is in ancs_provider.py (Notification Provider) and
ams_source.py (Media Source); the services only route reads and writes there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

from bumble import att, gatt

ANCS_SERVICE_UUID = '7905F431-B5CE-4E99-A40F-4B1E122D00D0'
ANCS_NOTIFICATION_SOURCE_UUID = '9FBF120D-6301-42D9-8C58-25E699A21DBD'
ANCS_CONTROL_POINT_UUID = '69D1D8F3-45E1-49A8-9821-9BBDFDAAD9D9'
ANCS_DATA_SOURCE_UUID = '22EAC6E9-24D6-4BB5-BE44-B36ACE7C7BFB'

AMS_SERVICE_UUID = '89D3502B-0F36-433A-8EF4-C502AD55F8DC'
AMS_REMOTE_COMMAND_UUID = '9B3C81D8-57B1-4A8A-B8DF-0E56F7CA51C2'
AMS_ENTITY_UPDATE_UUID = '2F7CABCE-808D-411F-9A0C-BB92BA96C102'
AMS_ENTITY_ATTRIBUTE_UUID = 'C6B2F38C-23AB-46D8-A6AB-A3A870BBD5D7'

# Names used in events and by the servers.
NOTIFICATION_SOURCE = 'notification_source'
CONTROL_POINT = 'control_point'
DATA_SOURCE = 'data_source'
REMOTE_COMMAND = 'remote_command'
ENTITY_UPDATE = 'entity_update'
ENTITY_ATTRIBUTE = 'entity_attribute'
ANCS_CHARACTERISTICS = (NOTIFICATION_SOURCE, CONTROL_POINT, DATA_SOURCE)
AMS_CHARACTERISTICS = (REMOTE_COMMAND, ENTITY_UPDATE, ENTITY_ATTRIBUTE)

_Properties = gatt.Characteristic.Properties
_Permissions = gatt.Characteristic.Permissions
ENCRYPTED_READ = _Permissions.READABLE | _Permissions.READ_REQUIRES_ENCRYPTION
ENCRYPTED_WRITE = _Permissions.WRITEABLE | _Permissions.WRITE_REQUIRES_ENCRYPTION

# write(connection, value) may raise att.ATT_Error; read(connection) returns the value.
WriteHandler = Callable[[object, bytes], Awaitable[None]]
ReadHandler = Callable[[object], Awaitable[bytes]]


def _characteristic(
    uuid: str,
    properties,
    permissions,
    write: WriteHandler | None = None,
    read: ReadHandler | None = None,
) -> gatt.Characteristic:
    async def on_write(connection, value: bytes) -> None:
        if write is not None:
            await write(connection, bytes(value))

    async def on_read(connection) -> bytes:
        return await read(connection) if read is not None else b''

    return gatt.Characteristic(uuid, properties, permissions, gatt.CharacteristicValue(read=on_read, write=on_write))


class AncsService(gatt.Service):
    def __init__(self, control_point: WriteHandler) -> None:
        self.notification_source = _characteristic(ANCS_NOTIFICATION_SOURCE_UUID, _Properties.NOTIFY, _Permissions(0))
        self.control_point = _characteristic(ANCS_CONTROL_POINT_UUID, _Properties.WRITE, ENCRYPTED_WRITE, control_point)
        self.data_source = _characteristic(ANCS_DATA_SOURCE_UUID, _Properties.NOTIFY, _Permissions(0))
        super().__init__(ANCS_SERVICE_UUID, [self.notification_source, self.control_point, self.data_source])

    def by_name(self) -> dict[str, gatt.Characteristic]:
        return {
            NOTIFICATION_SOURCE: self.notification_source,
            CONTROL_POINT: self.control_point,
            DATA_SOURCE: self.data_source,
        }


class AmsService(gatt.Service):
    def __init__(
        self,
        remote_command: WriteHandler,
        entity_update: WriteHandler,
        entity_attribute_write: WriteHandler,
        entity_attribute_read: ReadHandler,
    ) -> None:
        self.remote_command = _characteristic(
            AMS_REMOTE_COMMAND_UUID, _Properties.WRITE | _Properties.NOTIFY, ENCRYPTED_WRITE, remote_command
        )
        self.entity_update = _characteristic(
            AMS_ENTITY_UPDATE_UUID, _Properties.WRITE | _Properties.NOTIFY, ENCRYPTED_WRITE, entity_update
        )
        self.entity_attribute = _characteristic(
            AMS_ENTITY_ATTRIBUTE_UUID,
            _Properties.READ | _Properties.WRITE,
            ENCRYPTED_READ | ENCRYPTED_WRITE,
            entity_attribute_write,
            entity_attribute_read,
        )
        super().__init__(AMS_SERVICE_UUID, [self.remote_command, self.entity_update, self.entity_attribute])

    def by_name(self) -> dict[str, gatt.Characteristic]:
        return {
            REMOTE_COMMAND: self.remote_command,
            ENTITY_UPDATE: self.entity_update,
            ENTITY_ATTRIBUTE: self.entity_attribute,
        }


def require_encryption(server, services: list[gatt.Service]) -> None:
    """Make the CCCDs Bumble adds to these services' characteristics need an
    encrypted link too (call before gatt_policy.enforce)."""
    secure_handles = set()
    for service in services:
        for characteristic in service.characteristics:
            secure_handles.update(range(characteristic.handle + 1, characteristic.end_group_handle + 1))
    for attribute in server.attributes:
        if attribute.handle in secure_handles and attribute.type == gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR:
            attribute.permissions |= (
                _Permissions.READ_REQUIRES_ENCRYPTION | _Permissions.WRITE_REQUIRES_ENCRYPTION
            )


class GattLink:
    """What the Notification Provider and the Media Source need of the phone: who
    is subscribed to what (the GATT server's CCCD values), sending notifications,
    the ATT MTU of a connection, and emitting events."""

    def __init__(
        self,
        device_provider: Callable[[], object],
        characteristics: dict[str, gatt.Characteristic],
        connections: Callable[[], Iterable[object]],
        peer_name: Callable[[object], str],
        emit: Callable[..., None],
        spawn: Callable[[Awaitable], None],
    ) -> None:
        self._device = device_provider
        self.characteristics = characteristics
        self._connections = connections
        self.peer = peer_name
        self.emit = emit
        self.spawn = spawn

    def connections(self) -> list[object]:
        return list(self._connections())

    def connected(self, connection) -> bool:
        return any(connection is live for live in self._connections())

    def _cccds(self, connection) -> dict:
        return self._device().gatt_server.subscribers.get(connection, {})

    def is_subscribed(self, connection, name: str) -> bool:
        cccd = self._cccds(connection).get(self.characteristics[name].handle)
        return bool(cccd) and len(cccd) == 2 and bool(cccd[0] & 0x01)

    def forget_subscription(self, connection, name: str) -> bool:
        """The server forgets a client's subscription without telling it (what an
        iPhone does when its ANCS daemon loses track of the accessory)."""
        return self._cccds(connection).pop(self.characteristics[name].handle, None) is not None

    @staticmethod
    def mtu(connection) -> int:
        return int(getattr(connection, 'att_mtu', att.ATT_DEFAULT_MTU))

    async def notify(self, connection, name: str, value: bytes) -> bool:
        """One GATT notification, if the link is up and the client subscribed."""
        if not self.connected(connection) or not self.is_subscribed(connection, name):
            return False
        if len(value) > self.mtu(connection) - 3:
            raise ValueError(f'{name}: {len(value)} bytes do not fit ATT_MTU {self.mtu(connection)}')
        await self._device().gatt_server.notify_subscriber(connection, self.characteristics[name], value)
        return True

    async def until_disconnected(self, connection, timeout: float | None) -> None:
        """Wait for `timeout` seconds (None: for ever), or until the link is gone."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self.connected(connection):
            if deadline is not None and loop.time() >= deadline:
                return
            await asyncio.sleep(0.05)
