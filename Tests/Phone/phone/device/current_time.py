"""The Current Time Service (0x1805) iOS serves to bonded accessories.

A head unit has no battery clock; it takes the time from the phone. The
phone's clock can be set apart from the host's (`set_clock`), so a test can
tell the phone's time on the head unit's screen from its own.
"""

from __future__ import annotations

import datetime

from bumble import att, gatt

CURRENT_TIME_SERVICE_UUID = gatt.GATT_CURRENT_TIME_SERVICE
CURRENT_TIME_UUID = gatt.GATT_CURRENT_TIME_CHARACTERISTIC


def encode_current_time(now: datetime.datetime) -> bytes:
    """Exact Time 256 + Adjust Reason (GATT Specification Supplement 3.62)."""
    return bytes([
        now.year & 0xFF, now.year >> 8, now.month, now.day, now.hour, now.minute, now.second,
        now.isoweekday(), int(now.microsecond * 256 / 1_000_000), 0,
    ])


class CurrentTimeService(gatt.Service):
    def __init__(self) -> None:
        self.offset = datetime.timedelta(0)
        self.current_time = gatt.Characteristic(
            CURRENT_TIME_UUID,
            gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.NOTIFY,
            att.Attribute.Permissions.READABLE | att.Attribute.Permissions.READ_REQUIRES_ENCRYPTION,
            gatt.CharacteristicValue(read=lambda _connection: encode_current_time(self.now())),
        )
        super().__init__(CURRENT_TIME_SERVICE_UUID, [self.current_time])

    def now(self) -> datetime.datetime:
        return datetime.datetime.now() + self.offset

    def set_clock(self, when: datetime.datetime) -> None:
        self.offset = when - datetime.datetime.now()
