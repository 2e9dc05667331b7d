"""Apple Notification Center Service and Apple Media Service: the GATT shape and the
security of the real ones (PROTOCOL.md §2, §3), behaviour still to come.

Bumble's `profiles.ancs` / `profiles.ams` servers are placeholders with properties
that differ from Apple's; these declare the characteristics as iOS does. Every
characteristic value and its CCCD requires an encrypted link with a bonded peer:
before pairing a client gets Insufficient Authentication (0x05), after bonding but
before encryption Insufficient Encryption (0x0F) — see gatt_policy.py.

Writes after encryption are accepted and reported (`ancs_write`/`ams_write`
events); the Notification Provider and Media Source logic is not implemented yet.
"""

from __future__ import annotations

from collections.abc import Callable

from bumble import gatt

ANCS_SERVICE_UUID = '7905F431-B5CE-4E99-A40F-4B1E122D00D0'
ANCS_NOTIFICATION_SOURCE_UUID = '9FBF120D-6301-42D9-8C58-25E699A21DBD'
ANCS_CONTROL_POINT_UUID = '69D1D8F3-45E1-49A8-9821-9BBDFDAAD9D9'
ANCS_DATA_SOURCE_UUID = '22EAC6E9-24D6-4BB5-BE44-B36ACE7C7BFB'

AMS_SERVICE_UUID = '89D3502B-0F36-433A-8EF4-C502AD55F8DC'
AMS_REMOTE_COMMAND_UUID = '9B3C81D8-57B1-4A8A-B8DF-0E56F7CA51C2'
AMS_ENTITY_UPDATE_UUID = '2F7CABCE-808D-411F-9A0C-BB92BA96C102'
AMS_ENTITY_ATTRIBUTE_UUID = 'C6B2F38C-23AB-46D8-A6AB-A3A870BBD5D7'

_Properties = gatt.Characteristic.Properties
_Permissions = gatt.Characteristic.Permissions
ENCRYPTED_READ = _Permissions.READABLE | _Permissions.READ_REQUIRES_ENCRYPTION
ENCRYPTED_WRITE = _Permissions.WRITEABLE | _Permissions.WRITE_REQUIRES_ENCRYPTION

WriteObserver = Callable[[object, str, bytes], None]


def _characteristic(uuid: str, properties, permissions, name: str, on_write: WriteObserver) -> gatt.Characteristic:
    def write(connection, value: bytes) -> None:
        on_write(connection, name, bytes(value))

    def read(_connection) -> bytes:
        return b''

    return gatt.Characteristic(uuid, properties, permissions, gatt.CharacteristicValue(read=read, write=write))


class AncsService(gatt.Service):
    def __init__(self, on_write: WriteObserver) -> None:
        self.notification_source = _characteristic(
            ANCS_NOTIFICATION_SOURCE_UUID, _Properties.NOTIFY, _Permissions(0), 'notification_source', on_write
        )
        self.control_point = _characteristic(
            ANCS_CONTROL_POINT_UUID, _Properties.WRITE, ENCRYPTED_WRITE, 'control_point', on_write
        )
        self.data_source = _characteristic(
            ANCS_DATA_SOURCE_UUID, _Properties.NOTIFY, _Permissions(0), 'data_source', on_write
        )
        super().__init__(ANCS_SERVICE_UUID, [self.notification_source, self.control_point, self.data_source])


class AmsService(gatt.Service):
    def __init__(self, on_write: WriteObserver) -> None:
        self.remote_command = _characteristic(
            AMS_REMOTE_COMMAND_UUID,
            _Properties.WRITE | _Properties.NOTIFY,
            ENCRYPTED_WRITE,
            'remote_command',
            on_write,
        )
        self.entity_update = _characteristic(
            AMS_ENTITY_UPDATE_UUID,
            _Properties.WRITE | _Properties.NOTIFY,
            ENCRYPTED_WRITE,
            'entity_update',
            on_write,
        )
        self.entity_attribute = _characteristic(
            AMS_ENTITY_ATTRIBUTE_UUID,
            _Properties.READ | _Properties.WRITE,
            ENCRYPTED_READ | ENCRYPTED_WRITE,
            'entity_attribute',
            on_write,
        )
        super().__init__(AMS_SERVICE_UUID, [self.remote_command, self.entity_update, self.entity_attribute])


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
