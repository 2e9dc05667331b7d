"""The accessory picker (AccessorySetupKit) the NotifBridge app shows: it
lists the advertisers whose advertisement carries the NotifBridge service
UUID and whose local name (advertising data or scan response) contains
`NotifBdg`, the app's discovery filter."""

from __future__ import annotations

import asyncio

from bumble.core import UUID, AdvertisingData

from .sender import SERVICE_UUID

NAME_SUBSTRING = 'NotifBdg'
_UUID_LISTS = (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS,
               AdvertisingData.INCOMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS)
_NAMES = (AdvertisingData.COMPLETE_LOCAL_NAME, AdvertisingData.SHORTENED_LOCAL_NAME)


def matches(data: AdvertisingData) -> str | None:
    """The local name of an advertisement the picker lists, None otherwise."""
    service = UUID(SERVICE_UUID)
    if not any(service in (data.get(kind) or []) for kind in _UUID_LISTS):
        return None
    for kind in _NAMES:
        name = data.get(kind)
        if isinstance(name, str) and NAME_SUBSTRING in name:
            return name
    return None


async def find_accessory(device, timeout: float = 5.0, name: str | None = None) -> tuple[str, str]:
    """(address with Bumble's type suffix, local name) of the first accessory
    the picker lists (called `name` if given). Scans actively unless the
    device scans already (then it only listens)."""
    found: asyncio.Future = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement) -> None:
        listed = matches(advertisement.data)
        if listed is not None and (name is None or listed == name) and not found.done():
            found.set_result((str(advertisement.address), listed))

    device.on('advertisement', on_advertisement)
    started = not device.scanning
    if started:
        await device.start_scanning(active=True, filter_duplicates=False)
    try:
        return await asyncio.wait_for(found, timeout)
    except asyncio.TimeoutError:
        raise LookupError(f'no NotifBridge accessory{" " + repr(name) if name else ""} within {timeout} s') from None
    finally:
        device.remove_listener('advertisement', on_advertisement)
        if started and device.scanning:
            await device.stop_scanning()
