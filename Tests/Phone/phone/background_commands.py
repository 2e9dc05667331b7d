"""Control-protocol commands for the app in the background (docs/PROTOCOL.md §7).

- `app_background` (`phone`): the user leaves the NavigationNotifier Server app;
  the phone advertises as iOS does for a background app (no service UUID, no name,
  the overflow area, about one advertisement a second). Reply: STATE.
- `app_foreground` (`phone`): the app is opened again: the service UUID and the
  name are back. Reply: STATE.
- `set_address_rotation` (`phone`, `seconds`: a number above 0, or null for
  none): the resolvable private address changes every `seconds` (iOS: about 900);
  a change due while connected happens once the link is gone. Reply: STATE.
"""

from __future__ import annotations

from .control import _phone_name
from .device.phone import PhoneError


def register(protocol) -> None:
    def phone_of(arguments: dict):
        return protocol.simulator.phone(_phone_name(arguments))

    def app_state(state: str):
        async def run(arguments: dict) -> dict:
            phone = phone_of(arguments)
            await phone.set_app_state(state)
            return phone.state()

        return run

    async def set_address_rotation(arguments: dict) -> dict:
        phone = phone_of(arguments)
        if 'seconds' not in arguments:
            raise PhoneError('missing "seconds" (a number above 0, or null)')
        seconds = arguments['seconds']
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))):
            raise PhoneError('"seconds" is a number above 0, or null')
        phone.set_address_rotation(seconds)
        return phone.state()

    protocol.register('app_background', app_state('background'))
    protocol.register('app_foreground', app_state('foreground'))
    protocol.register('set_address_rotation', set_address_rotation)
