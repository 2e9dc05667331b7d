"""The JSON-lines control protocol: one command per line in, one event per line out.

Command: {"cmd": NAME, "id": ANY, ...arguments}. Every command gets exactly one
answer carrying the same id: {"event": "reply", "id": ID, "cmd": NAME, "ok": true,
...result} or {"event": "error", "id": ID, "cmd": NAME, "ok": false, "error": TEXT}.
Everything else on the output is an asynchronous event without an id (see README.md).
"""

from __future__ import annotations

import datetime

import dataclasses
import inspect
import json
import logging
from collections.abc import Awaitable, Callable

from .device.phone import PhoneError, PhoneSettings
from .simulator import Simulator

logger = logging.getLogger(__name__)



def _is_random_address(text: str) -> bool:
    """Six colon-separated octets; the top two bits say resolvable (01) or static (11)."""
    parts = text.split(':')
    if len(parts) != 6 or not all(len(p) == 2 and all(c in '0123456789abcdefABCDEF' for c in p) for p in parts):
        return False
    return int(parts[0], 16) >> 6 in (0b01, 0b11)


class ControlError(Exception):
    pass


_PHONE_SETTING_KEYS = {field.name for field in dataclasses.fields(PhoneSettings)} - {'name'}


def _phone_name(arguments: dict) -> str:
    name = arguments.get('phone', arguments.get('name'))
    if not isinstance(name, str) or not name:
        raise ControlError('missing "phone"')
    return name


class ControlProtocol:
    def __init__(self, simulator: Simulator, on_quit: Callable[[], None]) -> None:
        self.simulator = simulator
        self.on_quit = on_quit
        self._commands: dict[str, Callable[[dict], Awaitable[dict]]] = {
            'add_phone': self._add_phone,
            'remove_phone': self._remove_phone,
            'power_on': self._phone_action('power_on'),
            'power_off': self._phone_action('power_off'),
            'out_of_range': self._phone_action('go_out_of_range'),
            'in_range': self._phone_action('come_into_range'),
            'unpair': self._phone_action('unpair'),
            'request_security': self._phone_action('request_security'),
            'state': self._phone_action(None),
            'set_paired': self._set_paired,
            'rotate_address': self._rotate_address,
            'disconnect': self._disconnect,
            'type_passkey': self._type_passkey,
            'confirm_pairing': self._confirm_pairing,
            'set_pairing_mode': self._set_pairing_mode,
            'forget_bond': self._forget_bond,
            'set_clock': self._set_clock,
            'list': self._list,
            'ping': self._ping,
            'quit': self._quit,
        }
        from .apple_commands import register as register_apple_commands

        register_apple_commands(self)
        from .faults import register as register_fault_commands

        register_fault_commands(self)
        from .soak import register as register_soak

        register_soak(self)
        from .security_commands import register as register_security_commands

        register_security_commands(self)
        from .notifbridge.commands import register as register_notifbridge_commands

        register_notifbridge_commands(self)

        from .background_commands import register as register_background_commands

        register_background_commands(self)
        from .settings_commands import register as register_settings_commands

        register_settings_commands(self)
        from .hostile_commands import register as register_hostile_commands

        register_hostile_commands(self)
        from .l2cap_commands import register as register_l2cap_commands

        register_l2cap_commands(self)
        from .ghostdrop_commands import register as register_ghostdrop_commands

        register_ghostdrop_commands(self)
        from .ghostdrop_scan import register as register_ghostdrop_scan

        register_ghostdrop_scan(self)

    @property
    def command_names(self) -> list[str]:
        return sorted(self._commands)

    def register(self, name: str, handler: Callable[[dict], Awaitable[dict]]) -> None:
        """Commands defined elsewhere (apple_commands.py: ANCS, AMS, scenarios)."""
        self._commands[name] = handler

    async def handle_line(self, line: str) -> dict | None:
        """Run one command line; returns the reply event (None for a blank line)."""
        line = line.strip()
        if not line:
            return None
        try:
            command = json.loads(line)
        except ValueError as error:
            return {'event': 'error', 'id': None, 'cmd': None, 'ok': False, 'error': f'bad JSON: {error}'}
        if not isinstance(command, dict):
            return {'event': 'error', 'id': None, 'cmd': None, 'ok': False, 'error': 'a command is a JSON object'}
        name = command.get('cmd', command.get('command'))
        request_id = command.get('id')
        handler = self._commands.get(name) if isinstance(name, str) else None
        if handler is None:
            return {
                'event': 'error',
                'id': request_id,
                'cmd': name,
                'ok': False,
                'error': f'unknown command {name!r}; known: {", ".join(self.command_names)}',
            }
        try:
            result = await handler(command)
        except (ControlError, PhoneError, TypeError, ValueError) as error:
            return {'event': 'error', 'id': request_id, 'cmd': name, 'ok': False, 'error': str(error)}
        except Exception as error:  # noqa: BLE001 - report, keep serving
            logger.exception('command %s failed', name)
            return {'event': 'error', 'id': request_id, 'cmd': name, 'ok': False, 'error': repr(error)}
        return {'event': 'reply', 'id': request_id, 'cmd': name, 'ok': True, **result}

    # ---------------------------------------------------------------- commands
    def _phone_action(self, method: str | None) -> Callable[[dict], Awaitable[dict]]:
        """A command that calls one argument-less Phone method and replies STATE."""

        async def run(arguments: dict) -> dict:
            phone = self.simulator.phone(_phone_name(arguments))
            if method is not None:
                result = getattr(phone, method)()
                if inspect.isawaitable(result):
                    await result
            return phone.state()

        return run

    async def _add_phone(self, arguments: dict) -> dict:
        name = _phone_name(arguments)
        settings = {key: arguments[key] for key in _PHONE_SETTING_KEYS if key in arguments}
        phone = await self.simulator.add_phone(name, power_on=bool(arguments.get('power', True)), **settings)
        return phone.state()

    async def _remove_phone(self, arguments: dict) -> dict:
        name = _phone_name(arguments)
        await self.simulator.remove_phone(name)
        return {'phone': name}

    async def _set_paired(self, arguments: dict) -> dict:
        phone = self.simulator.phone(_phone_name(arguments))
        value = arguments.get('value')
        if not isinstance(value, str):
            raise ControlError('missing "value"')
        await phone.set_paired(value, notify=bool(arguments.get('notify', False)))
        return phone.state()

    async def _rotate_address(self, arguments: dict) -> dict:
        phone = self.simulator.phone(_phone_name(arguments))
        old = phone.address
        replay = arguments.get('address')
        if replay is not None and not (isinstance(replay, str) and _is_random_address(replay)):
            raise ControlError('"address" is a random address, e.g. "5B:11:22:33:44:55"')
        await phone.rotate_address(replay)
        return {**phone.state(), 'old_address': old}

    async def _disconnect(self, arguments: dict) -> dict:
        phone = self.simulator.phone(_phone_name(arguments))
        reason = arguments.get('reason', 0x13)
        if not isinstance(reason, int):
            raise ControlError('"reason" is an HCI error code (integer)')
        await phone.disconnect(reason)
        return phone.state()

    async def _type_passkey(self, arguments: dict) -> dict:
        phone = self.simulator.phone(_phone_name(arguments))
        digits = arguments.get('digits', arguments.get('passkey'))
        if not isinstance(digits, (str, int)) or isinstance(digits, bool):
            raise ControlError('missing "digits"')
        phone.type_passkey(digits)
        return phone.state()

    async def _confirm_pairing(self, arguments: dict) -> dict:
        phone = self.simulator.phone(_phone_name(arguments))
        phone.confirm_pairing(bool(arguments.get('accept', True)))
        return phone.state()

    async def _set_pairing_mode(self, arguments: dict) -> dict:
        phone = self.simulator.phone(_phone_name(arguments))
        phone.set_pairing_mode(str(arguments.get('mode')))
        return phone.state()

    async def _set_clock(self, arguments: dict) -> dict:
        phone = self.simulator.phone(_phone_name(arguments))
        when = arguments.get('time')
        if not isinstance(when, str):
            raise ControlError('"time" is an ISO 8601 local time, e.g. 2026-11-22T08:15:00')
        try:
            phone.clock.set_clock(datetime.datetime.fromisoformat(when))
        except ValueError as error:
            raise ControlError(f'bad "time": {error}') from error
        return phone.state()

    async def _forget_bond(self, arguments: dict) -> dict:
        phone = self.simulator.phone(_phone_name(arguments))
        peer = arguments.get('peer')
        if peer is not None and not isinstance(peer, str):
            raise ControlError('"peer" is an address string')
        forgotten = await phone.forget_bond(peer)
        return {**phone.state(), 'forgotten': forgotten}

    async def _list(self, _arguments: dict) -> dict:
        return {
            'phones': [phone.state() for phone in self.simulator.phones.values()],
            'hci_port': self.simulator.hci_port,
            'hci_client': self.simulator.server.connected if self.simulator.server else False,
        }

    async def _ping(self, _arguments: dict) -> dict:
        return {}

    async def _quit(self, _arguments: dict) -> dict:
        self.on_quit()
        return {}
