"""What Settings → Bluetooth lists: accessories heard advertising.

iOS lists an LE accessory in Settings when it asks for a service the iPhone
provides (AD type 0x15, List of 128-bit Service Solicitation UUIDs, with ANCS — and
AMS) or when it is a HID device (service 0x1812 in a 16-bit service UUID list).
Other advertisers (phones, beacons) are not shown. Parsing here is over the raw AD
structures, so a malformed one is skipped instead of hiding the whole report.
"""

from __future__ import annotations

import dataclasses
import time
import uuid

from .apple_services import AMS_SERVICE_UUID, ANCS_SERVICE_UUID

AD_INCOMPLETE_16 = 0x02
AD_COMPLETE_16 = 0x03
AD_SHORTENED_NAME = 0x08
AD_COMPLETE_NAME = 0x09
AD_SOLICITATION_128 = 0x15
HID_SERVICE = 0x1812

_ANCS = uuid.UUID(ANCS_SERVICE_UUID).bytes[::-1]
_AMS = uuid.UUID(AMS_SERVICE_UUID).bytes[::-1]


def ad_structures(data: bytes) -> list[tuple[int, bytes]]:
    """(type, value) of each AD structure; stops at the first that overruns."""
    structures = []
    index = 0
    while index < len(data):
        length = data[index]
        if length == 0:
            break  # the rest is padding
        if index + 1 + length > len(data):
            break
        structures.append((data[index + 1], bytes(data[index + 2 : index + 1 + length])))
        index += 1 + length
    return structures


@dataclasses.dataclass
class Heard:
    """What one advertising (or scan response) report says about an accessory."""

    name: str | None = None
    # The name came as a shortened name (AD type 0x08): the beginning of it.
    shortened: bool = False
    ancs: bool = False
    ams: bool = False
    hid: bool = False


def parse(data: bytes) -> Heard:
    heard = Heard()
    for ad_type, value in ad_structures(data):
        if ad_type == AD_SOLICITATION_128:
            solicited = {value[i : i + 16] for i in range(0, len(value) - 15, 16)}
            heard.ancs = heard.ancs or _ANCS in solicited
            heard.ams = heard.ams or _AMS in solicited
        elif ad_type in (AD_INCOMPLETE_16, AD_COMPLETE_16):
            services = {int.from_bytes(value[i : i + 2], 'little') for i in range(0, len(value) - 1, 2)}
            heard.hid = heard.hid or HID_SERVICE in services
        elif ad_type == AD_COMPLETE_NAME or (ad_type == AD_SHORTENED_NAME and (heard.name is None or heard.shortened)):
            # The complete name wins over a shortened one, whatever the order.
            heard.name = value.decode('utf-8', errors='replace')
            heard.shortened = ad_type == AD_SHORTENED_NAME
    return heard


@dataclasses.dataclass
class Accessory:
    """One row of Settings → Bluetooth."""

    address: str  # the address it advertises with now (an RPA changes)
    public: bool = False  # that address is a public device address (else random)
    identity: str | None = None  # its identity address, once bonded and resolved
    name: str | None = None
    shortened: bool = False
    # Every name the row has shown, in order: one while the name holds still.
    names: list[str] = dataclasses.field(default_factory=list)
    rssi: int = 0
    ancs: bool = False
    ams: bool = False
    hid: bool = False
    last_seen: float = dataclasses.field(default_factory=time.monotonic)

    def is_called(self, name: str) -> bool:
        """Whether a person told the accessory is `name` taps this row: the
        same name, or a shortened one (AD type 0x08) that `name` begins with."""
        return self.name is not None and (self.name == name or (self.shortened and name.startswith(self.name)))

    @property
    def listed(self) -> bool:
        return self.ancs or self.hid

    def update(self, heard: Heard, rssi: int) -> None:
        if heard.name is not None:
            self.name, self.shortened = heard.name, heard.shortened
            if not self.names or self.names[-1] != heard.name:
                self.names.append(heard.name)
        self.ancs = self.ancs or heard.ancs
        self.ams = self.ams or heard.ams
        self.hid = self.hid or heard.hid
        self.rssi = rssi
        self.last_seen = time.monotonic()

    def describe(self, bonded: bool, connected: bool) -> dict:
        return {
            'address': self.address,
            'address_type': 'public' if self.public else 'random',
            'identity': self.identity,
            'name': self.name,
            'names': list(self.names),
            'shortened': self.shortened,
            'rssi': self.rssi,
            'ancs': self.ancs,
            'ams': self.ams,
            'hid': self.hid,
            'bonded': bonded,
            'connected': connected,
        }
