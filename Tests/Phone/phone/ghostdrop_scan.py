"""GhostDrop's sender looking for receivers, as the reference does
(TastyHeadphones/GhostDrop, BLE/BLECentralActor.swift): `scanForPeripherals(
withServices: [GhostDrop's service UUID])`, so only advertisers of that UUID are
listed; each under the local name of its advertisement, with the capabilities
from its service data for the service UUID, else from its manufacturer data,
else none (the sender then takes its defaults: GATT, no L2CAP).

An iPhone scanning in the foreground scans actively and merges the scan response
into the advertisement, so the filter is taken to match the UUID in either PDU;
each receiver also says whether the UUID came in the advertising PDU itself
(`in_advertising_data`), where every scan filter matches.

- `ghostdrop_scan` (`phone`; optional `seconds` 5, `name`): the phone scans for
  `seconds`, or until a receiver called `name` (the same name, or a shortened
  name that `name` begins with) is listed. Reply: `receivers`, one per
  address: `address`, `name`, `shortened`, `names` (every name heard, in order),
  `capabilities` (the JSON object, or null), `in_advertising_data`, `reports`
  (how many matched), `first_heard_s` (seconds from the start of the scan).
"""

from __future__ import annotations

import asyncio
import json
import time

from bumble.core import UUID, AdvertisingData

from .control import ControlError, _phone_name
from .ghostdrop import SERVICE_UUID
from .notifbridge.picker import _scanning, is_called, local_name

_UUID_LISTS = (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS,
               AdvertisingData.INCOMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS)
_SERVICE = UUID(SERVICE_UUID)


def advertises(data: AdvertisingData) -> bool:
    return any(_SERVICE in (data.get(kind) or []) for kind in _UUID_LISTS)


def capabilities(data: AdvertisingData) -> dict | None:
    """BLEAdvertisementCapabilities from the service data of GhostDrop's UUID,
    else from the manufacturer data; None when neither decodes."""
    raw = []
    for entry in data.get_all(AdvertisingData.SERVICE_DATA_128_BIT_UUID) or []:
        if isinstance(entry, tuple) and entry[0] == _SERVICE:
            raw.append(bytes(entry[1]))
    manufacturer = data.get(AdvertisingData.MANUFACTURER_SPECIFIC_DATA, raw=True)
    if manufacturer:
        raw.append(bytes(manufacturer))
    for candidate in raw:
        try:
            decoded = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(decoded, dict) and isinstance(decoded.get('capabilities'), dict):
            return decoded
    return None


async def scan(device, seconds: float, name: str | None = None) -> list[dict]:
    """The receivers GhostDrop's sender lists while scanning `seconds`, or until
    one called `name` is listed."""
    start = time.monotonic()
    receivers: dict[str, dict] = {}
    found = asyncio.Event()

    def on_advertisement(advertisement) -> None:
        if not advertises(advertisement.data):
            return
        address = str(advertisement.address)
        # A scan response report carries the advertising PDU's data joined with
        # its own (Bumble's accumulator); `data_bytes` is that report's alone.
        own = AdvertisingData.from_bytes(advertisement.data_bytes)
        in_advertising_data = not advertisement.is_scan_response or not advertises(own)
        receiver = receivers.setdefault(address, {
            'address': address, 'name': None, 'shortened': False, 'names': [], 'capabilities': None,
            'in_advertising_data': False, 'reports': 0, 'first_heard_s': round(time.monotonic() - start, 3),
        })
        receiver['reports'] += 1
        receiver['in_advertising_data'] = receiver['in_advertising_data'] or in_advertising_data
        receiver['capabilities'] = capabilities(advertisement.data) or receiver['capabilities']
        named = local_name(advertisement.data)
        if named is not None:
            receiver['name'], receiver['shortened'] = named
            if not receiver['names'] or receiver['names'][-1] != named[0]:
                receiver['names'].append(named[0])
            if name is not None and is_called(named[0], named[1], name):
                found.set()

    async with _scanning(device):
        device.on('advertisement', on_advertisement)
        try:
            await asyncio.wait_for(found.wait(), seconds)
        except asyncio.TimeoutError:
            pass
        finally:
            device.remove_listener('advertisement', on_advertisement)
    return list(receivers.values())


def register(protocol) -> None:
    async def ghostdrop_scan(arguments: dict) -> dict:
        phone = protocol.simulator.phone(_phone_name(arguments))
        if not phone.powered:
            raise ControlError('Bluetooth is off')
        seconds = arguments.get('seconds', 5)
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
            raise ControlError('"seconds" is a number of seconds')
        name = arguments.get('name')
        if name is not None and not isinstance(name, str):
            raise ControlError('"name" is a string')
        return {'receivers': await scan(phone.device, float(seconds), name)}

    protocol.register('ghostdrop_scan', ghostdrop_scan)
