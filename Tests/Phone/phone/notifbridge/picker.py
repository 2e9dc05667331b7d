"""The accessory picker (AccessorySetupKit) the NotifBridge app shows: it
lists the advertisers whose advertisement carries the NotifBridge service
UUID and whose local name (advertising data or scan response) contains
`NotifBdg`, the app's discovery filter (its ASDiscoveryDescriptor's
service UUID and name substring). The picker's row shows the app's own
label; the advertised name is what the user matches against the
accessory's screen, so a person taps the row whose name the head unit
shows (a shortened name, AD type 0x08, as the beginning of it)."""

from __future__ import annotations

import asyncio

from bumble.core import UUID, AdvertisingData

from .sender import SERVICE_UUID

NAME_SUBSTRING = 'NotifBdg'
_UUID_LISTS = (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS,
               AdvertisingData.INCOMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS)


def local_name(data: AdvertisingData) -> tuple[str, bool] | None:
    """(name, shortened) of an advertisement, the complete name first."""
    for kind, shortened in ((AdvertisingData.COMPLETE_LOCAL_NAME, False), (AdvertisingData.SHORTENED_LOCAL_NAME, True)):
        name = data.get(kind)
        if isinstance(name, str):
            return name, shortened
    return None


def matches(data: AdvertisingData) -> str | None:
    """The local name of an advertisement the picker lists, None otherwise."""
    service = UUID(SERVICE_UUID)
    if not any(service in (data.get(kind) or []) for kind in _UUID_LISTS):
        return None
    named = local_name(data)
    if named is not None and NAME_SUBSTRING in named[0]:
        return named[0]
    return None


def is_called(listed: str, shortened: bool, name: str) -> bool:
    """Whether a row listed as `listed` is the accessory called `name`: the
    same name, or a shortened name that `name` begins with."""
    return listed == name or (shortened and name.startswith(listed))


async def find_accessory(device, timeout: float = 5.0, name: str | None = None) -> tuple[str, str]:
    """(address with Bumble's type suffix, local name) of the first accessory
    the picker lists (called `name` if given). Scans actively unless the
    device scans already (then it only listens)."""
    found: asyncio.Future = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement) -> None:
        listed = matches(advertisement.data)
        if listed is None or found.done():
            return
        shortened = local_name(advertisement.data)[1]
        if name is None or is_called(listed, shortened, name):
            found.set_result((str(advertisement.address), listed))

    async with _scanning(device):
        device.on('advertisement', on_advertisement)
        try:
            return await asyncio.wait_for(found, timeout)
        except asyncio.TimeoutError:
            raise LookupError(f'no NotifBridge accessory{" " + repr(name) if name else ""} within {timeout} s') from None
        finally:
            device.remove_listener('advertisement', on_advertisement)


async def watch(device, seconds: float) -> dict[str, list[str]]:
    """The picker open for `seconds`: for every advertiser it listed, each
    name heard from that address in that time, in order (one entry when the
    name never changed). Names heard from a listed address count even when
    that report alone would not be listed (a name without the marker)."""
    listed: set[str] = set()
    names: dict[str, list[str]] = {}

    def on_advertisement(advertisement) -> None:
        address = str(advertisement.address)
        if matches(advertisement.data) is not None:
            listed.add(address)
        named = local_name(advertisement.data)
        if named is not None:
            heard = names.setdefault(address, [])
            if not heard or heard[-1] != named[0]:
                heard.append(named[0])

    async with _scanning(device):
        device.on('advertisement', on_advertisement)
        try:
            await asyncio.sleep(seconds)
        finally:
            device.remove_listener('advertisement', on_advertisement)
    return {address: names.get(address, []) for address in listed}


class _scanning:
    """Scans actively for the picker unless the device scans already."""

    def __init__(self, device) -> None:
        self.device = device
        self.started = False

    async def __aenter__(self):
        self.started = not self.device.scanning
        if self.started:
            await self.device.start_scanning(active=True, filter_duplicates=False)
        return self

    async def __aexit__(self, *_exc) -> None:
        if self.started and self.device.scanning:
            await self.device.stop_scanning()
