"""Control-protocol commands for Settings pairing (the phone as central).

- `list_accessories` (`phone`; optional `wait` seconds, `name`): Settings →
  Bluetooth is opened (scanning starts) and the accessories it lists are returned,
  after waiting up to `wait` seconds for one (called `name`, if given). Reply:
  `accessories` (`[ACCESSORY]`), `settings_open`.
- `close_settings` (`phone`): Settings is left; the Settings scan stops (the scan
  for bonded accessories that are away goes on). Reply: STATE.
- `tap_accessory` (`phone`, `address` or `name`; optional `timeout` 5, `secure`
  true): the user taps the accessory: the phone connects, then pairs (passkey:
  `type_passkey`) or encrypts with the bond; with `secure` false it only holds the
  link (a stranger: no pairing, Security Requests ignored). Reply: STATE plus
  `peer` and `handle` of the link.
- `allow_notifications` (`phone`; optional `allow` true, `peer`): the user answers
  "Allow ... to receive your notifications?" for `peer` (default: every accessory
  whose prompt is open). Reply: STATE plus `answered` (identities).
- `set_notification_prompt` (`phone`, `mode`: `allow`, `ask`, `deny`): how the
  prompt is answered for the next accessories paired. Reply: STATE.
"""

from __future__ import annotations

from .control import ControlError, _phone_name
from .device.settings_pairing import PROMPT_MODES


def register(protocol) -> None:
    def phone_of(arguments: dict):
        return protocol.simulator.phone(_phone_name(arguments))

    def number(arguments: dict, key: str, default: float) -> float:
        value = arguments.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ControlError(f'"{key}" is a number of seconds')
        return float(value)

    def optional_text(arguments: dict, key: str) -> str | None:
        value = arguments.get(key)
        if value is not None and not isinstance(value, str):
            raise ControlError(f'"{key}" is a string')
        return value

    async def list_accessories(arguments: dict) -> dict:
        phone = phone_of(arguments)
        if not phone.powered:
            raise ControlError('Bluetooth is off')
        listed = await phone.settings_bluetooth.open_settings(
            number(arguments, 'wait', 0.0), optional_text(arguments, 'name')
        )
        return {'accessories': listed, 'settings_open': True}

    async def close_settings(arguments: dict) -> dict:
        phone = phone_of(arguments)
        await phone.settings_bluetooth.close_settings()
        return phone.state()

    async def tap_accessory(arguments: dict) -> dict:
        phone = phone_of(arguments)
        address, name = optional_text(arguments, 'address'), optional_text(arguments, 'name')
        if address is None and name is None:
            raise ControlError('missing "address" or "name"')
        try:
            secure = arguments.get('secure', True)
            if not isinstance(secure, bool):
                raise ControlError('"secure" is true or false')
            connection = await phone.settings_bluetooth.tap(address, name, number(arguments, 'timeout', 5.0), secure)
        except (LookupError, RuntimeError) as error:
            raise ControlError(str(error)) from error
        except Exception as error:  # noqa: BLE001 - Bumble's connection errors
            raise ControlError(f'connection failed: {error!r}') from error
        return {
            **phone.state(),
            'peer': connection.peer_address.to_string(with_type_qualifier=False),
            'handle': connection.handle,
        }

    async def allow_notifications(arguments: dict) -> dict:
        phone = phone_of(arguments)
        answered = phone.settings_bluetooth.allow(bool(arguments.get('allow', True)), optional_text(arguments, 'peer'))
        if not answered:
            raise ControlError('no accessory waits for that answer')
        return {**phone.state(), 'answered': answered}

    async def set_notification_prompt(arguments: dict) -> dict:
        phone = phone_of(arguments)
        mode = arguments.get('mode')
        if mode not in PROMPT_MODES:
            raise ControlError(f'"mode" is one of {", ".join(PROMPT_MODES)}')
        phone.settings_bluetooth.prompt = mode
        return phone.state()

    protocol.register('list_accessories', list_accessories)
    protocol.register('close_settings', close_settings)
    protocol.register('tap_accessory', tap_accessory)
    protocol.register('allow_notifications', allow_notifications)
    protocol.register('set_notification_prompt', set_notification_prompt)
