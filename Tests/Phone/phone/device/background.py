"""The NavigationNotifier Server app in the background, as iOS advertises it.

docs/PROTOCOL.md §7: when the app that advertises is not in the foreground, iOS
drops its 128-bit service UUIDs and its local name from the advertisement and
moves the UUIDs into Apple's "overflow area": manufacturer-specific data of
company 0x004C, type 0x01, followed by a 16-byte bitmask in which each UUID sets
one bit chosen by a hash that only iOS scanners know. The advertisement stays
connectable, at a long interval (about 1 s), from a resolvable private address
that iOS changes about every 15 minutes whatever the app does.

A head unit cannot tell the app from this advertisement; it finds a phone it is
bonded with by resolving the address with the phone's IRK.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable

logger = logging.getLogger(__name__)

APPLE = 0x004C
# AD type: Manufacturer Specific Data.
MANUFACTURER_SPECIFIC_DATA = 0xFF
# The first octet after Apple's company identifier: the overflow area.
OVERFLOW_AREA = 0x01
OVERFLOW_BITMASK_LENGTH = 16
# iOS advertises a backgrounded app at about one advertisement a second.
BACKGROUND_INTERVAL_MS = 1000.0


def overflow_bit(service_uuid: str) -> int:
    """The bit a service UUID sets in the overflow bitmask. iOS's hash is not
    published; any fixed hash of the UUID gives the same shape on the air (one bit
    per UUID, unreadable without the table), which is all a head unit may rely on."""
    return hashlib.sha256(uuid.UUID(service_uuid).bytes).digest()[0] % (8 * OVERFLOW_BITMASK_LENGTH)


def overflow_bitmask(service_uuids: Iterable[str]) -> bytes:
    mask = bytearray(OVERFLOW_BITMASK_LENGTH)
    for service_uuid in service_uuids:
        bit = overflow_bit(service_uuid)
        mask[bit // 8] |= 0x80 >> (bit % 8)
    return bytes(mask)


def background_advertising_data(flags: int, service_uuids: Iterable[str]) -> bytes:
    """The flags and the overflow area: no service UUID list, no name."""
    payload = APPLE.to_bytes(2, 'little') + bytes([OVERFLOW_AREA]) + overflow_bitmask(service_uuids)
    return bytes([2, 0x01, flags, 1 + len(payload), MANUFACTURER_SPECIFIC_DATA]) + payload


class AddressRotation:
    """Changes the phone's resolvable private address every `period` seconds, as
    iOS does (about every 15 minutes), whether the app is in the foreground or not.

    The address of a live connection never changes: a rotation that falls due
    while the phone is connected happens as soon as it is not. The new address is
    set by the phone itself (`rotate`), never by Bumble's `Device.update_rpa`,
    which programs the old address into the controller."""

    POLL_SECONDS = 0.1

    def __init__(self, rotate: Callable[[], Awaitable[object]], can_rotate: Callable[[], bool]) -> None:
        self._rotate = rotate
        self._can_rotate = can_rotate
        self.period: float | None = None
        self._task: asyncio.Task | None = None

    def set_period(self, period: float | None) -> None:
        if period is not None and not period > 0:
            raise ValueError('the rotation period is a number of seconds above 0, or null for none')
        self.stop()
        self.period = float(period) if period is not None else None
        if self.period is not None:
            self._task = asyncio.get_running_loop().create_task(self._run(self.period))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self, period: float) -> None:
        while True:
            await asyncio.sleep(period)
            while True:
                if self._can_rotate():
                    try:
                        await self._rotate()
                        break
                    except Exception as error:  # noqa: BLE001 - a connection came up meanwhile: wait for it to end
                        logger.debug('address rotation deferred: %r', error)
                await asyncio.sleep(self.POLL_SECONDS)
