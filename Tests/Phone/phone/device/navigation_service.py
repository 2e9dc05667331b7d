"""The phone app's NavigationNotifier pairing service (docs/PROTOCOL.md §1)."""

from __future__ import annotations

from collections.abc import Callable

from bumble import att, gatt

SERVICE_UUID = 'AB312B45-A8A1-4BCE-97E7-7D3D97FB541E'
SERVER_NAME_UUID = '0168FE9F-4277-4AE7-AC4A-3051F3A0C106'
PAIRED_CLIENT_NAME_UUID = '4C234FB3-71AB-4855-92D4-EC58BF163290'

UNPAIRED = 'UNPAIRED'
MAX_NAME_BYTES = 32

ATT_INVALID_ATTRIBUTE_VALUE_LENGTH = 0x0D
# Application errors: 0x80 is fixed by docs/PROTOCOL.md §1; 0x81 is this simulator's answer
# to a name that is not UTF-8 (the protocol is silent about it).
ATT_PAIRED_WITH_ANOTHER_CLIENT = 0x80
ATT_NAME_NOT_UTF8 = 0x81

# Names used in events for the two characteristics.
SERVER_NAME = 'server_name'
PAIRED_CLIENT_NAME = 'paired_client_name'


def valid_name(name: str) -> bool:
    return 1 <= len(name.encode('utf-8')) <= MAX_NAME_BYTES


class PairedClientName:
    """The value and the write rules of PAIRED CLIENT NAME, free of any GATT."""

    def __init__(self, value: str = UNPAIRED) -> None:
        self.value = value

    @property
    def is_unpaired(self) -> bool:
        return self.value == UNPAIRED

    def write(self, raw: bytes) -> int | None:
        """Apply a client's write; returns the ATT error code, or None if accepted."""
        if not 1 <= len(raw) <= MAX_NAME_BYTES:
            return ATT_INVALID_ATTRIBUTE_VALUE_LENGTH
        try:
            name = raw.decode('utf-8')
        except UnicodeDecodeError:
            return ATT_NAME_NOT_UTF8
        if name == UNPAIRED or self.value == UNPAIRED or self.value == name:
            self.value = name
            return None
        return ATT_PAIRED_WITH_ANOTHER_CLIENT

    def unpair(self) -> None:
        self.value = UNPAIRED


# Callbacks: read(connection, characteristic name, value) and
# write(connection, characteristic name, raw value, ATT error or None).
ReadObserver = Callable[[object, str, bytes], None]
WriteObserver = Callable[[object, str, bytes, 'int | None'], None]


class NavigationNotifierService(gatt.Service):
    def __init__(
        self,
        server_name: Callable[[], str],
        paired: PairedClientName,
        on_read: ReadObserver,
        on_write: WriteObserver,
    ) -> None:
        self._server_name = server_name
        self.paired = paired
        self._on_read = on_read
        self._on_write = on_write
        self.server_name_characteristic = gatt.Characteristic(
            SERVER_NAME_UUID,
            gatt.Characteristic.Properties.READ,
            gatt.Characteristic.Permissions.READABLE,
            gatt.CharacteristicValue(read=self._read_server_name),
        )
        self.paired_client_name_characteristic = gatt.Characteristic(
            PAIRED_CLIENT_NAME_UUID,
            gatt.Characteristic.Properties.READ
            | gatt.Characteristic.Properties.WRITE
            | gatt.Characteristic.Properties.NOTIFY,
            gatt.Characteristic.Permissions.READABLE | gatt.Characteristic.Permissions.WRITEABLE,
            gatt.CharacteristicValue(read=self._read_paired, write=self._write_paired),
        )
        super().__init__(
            SERVICE_UUID,
            [self.server_name_characteristic, self.paired_client_name_characteristic],
        )

    def _read_server_name(self, connection) -> bytes:
        value = self._server_name().encode('utf-8')
        self._on_read(connection, SERVER_NAME, value)
        return value

    def _read_paired(self, connection) -> bytes:
        value = self.paired.value.encode('utf-8')
        self._on_read(connection, PAIRED_CLIENT_NAME, value)
        return value

    def _write_paired(self, connection, raw: bytes) -> None:
        error = self.paired.write(bytes(raw))
        self._on_write(connection, PAIRED_CLIENT_NAME, bytes(raw), error)
        if error is not None:
            raise att.ATT_Error(error_code=error)
