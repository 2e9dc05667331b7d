"""Control-protocol commands for a hostile central (device/hostile.py): a stranger
that connects to the head unit as an iPhone would, for the integration tests of
docs/ROBUSTNESS.md, "Hostile centrals". Each names the stranger with `name`.

- `add_hostile` (`name`): a stranger powered on, from a random static address.
- `hostile_replay` (`name`, `phone` or `address`): it takes the phone's current
  address (or `address`) as its own. Reply: STATE.
- `hostile_connect` (`name`; optional `timeout` 5): it finds the head unit's
  advertisement (ANCS solicited) and connects. Reply: STATE plus `peer`.
- `hostile_encrypt` (`name`; optional `wait` 3): encryption started with a
  made-up key. Reply: `encrypted`, `reason` if the link ended.
- `hostile_pair` (`name`; optional `abandon` `silent`|`failed`|`disconnect`,
  `stop_after` `request`|`public_key`, `wait` 3): iOS's Pairing Request and (by
  default) a public key, then the attempt abandoned. Reply: `answer` (the head
  unit's first SMP PDU other than a Security Request, or null), `public_key`
  (the head unit sent its own), `reason` of a Pairing Failed.
- `hostile_sit` (`name`, `seconds`): stays connected answering nothing. Reply:
  `dropped`, `reason`, `held_s`.
- `hostile_disconnect` (`name`). Reply: STATE.
- `hostile_flood` (`name`, `count`; optional `wait` 1): `count` connections and
  Pairing Requests and public keys, each from a new address. Reply: `attempts`,
  `connected`, `pairing_responses`, `public_keys`, `pairing_failed`, `failures` (by reason), `unanswered`,
  `dropped`.

Events: `connected`, `disconnected` (`reason`, `held_s`), `smp_sent`,
`smp_received` (`code`, `reason`), `encryption_attempted`, `address_replayed`,
`flood_done`, each with `phone` = the name and `hostile` = true.
"""

from __future__ import annotations

from .control import ControlError
from .device.hostile import ABANDON_MODES, STOP_POINTS, HostileCentral


def register(protocol) -> None:
    simulator = protocol.simulator
    hostiles: dict[str, HostileCentral] = {}

    def name_of(arguments: dict) -> str:
        name = arguments.get('name', arguments.get('phone'))
        if not isinstance(name, str) or not name:
            raise ControlError('missing "name"')
        return name

    def hostile(arguments: dict) -> HostileCentral:
        found = hostiles.get(name_of(arguments))
        if found is None:
            raise ControlError(f'no hostile central {name_of(arguments)!r}')
        return found

    def seconds(arguments: dict, key: str, default: float) -> float:
        value = arguments.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ControlError(f'"{key}" is a number of seconds')
        return float(value)

    async def add_hostile(arguments: dict) -> dict:
        name = name_of(arguments)
        if name in hostiles or name in simulator.phones:
            raise ControlError(f'{name!r} exists already')
        if simulator.link is None:
            raise ControlError('simulator not started')
        central = HostileCentral(name, simulator.link, simulator.emit, link_loss_delay=simulator.link_loss_delay)
        hostiles[name] = central
        await central.power_on()
        return central.state()

    async def remove_hostile(arguments: dict) -> dict:
        central = hostile(arguments)
        await central.close()
        del hostiles[central.name]
        return {'name': central.name}

    async def replay(arguments: dict) -> dict:
        central = hostile(arguments)
        address = arguments.get('address')
        phone = arguments.get('phone')
        if isinstance(phone, str) and phone != central.name:
            address = simulator.phone(phone).address
        if not isinstance(address, str):
            raise ControlError('missing "phone" (whose address) or "address"')
        await central.replay(address)
        return central.state()

    async def connect(arguments: dict) -> dict:
        central = hostile(arguments)
        try:
            connection = await central.connect(seconds(arguments, 'timeout', 5.0))
        except LookupError as error:
            raise ControlError(str(error)) from error
        except Exception as error:  # noqa: BLE001 - Bumble's connection errors
            raise ControlError(f'connection failed: {error!r}') from error
        return {**central.state(), 'peer': connection.peer_address.to_string(with_type_qualifier=False)}

    async def encrypt(arguments: dict) -> dict:
        central = hostile(arguments)
        return await central.encrypt_with_made_up_key(seconds(arguments, 'wait', 3.0))

    async def pair(arguments: dict) -> dict:
        central = hostile(arguments)
        abandon = arguments.get('abandon', 'silent')
        if abandon not in ABANDON_MODES:
            raise ControlError(f'"abandon" is one of {", ".join(ABANDON_MODES)}')
        stop_after = arguments.get('stop_after', 'public_key')
        if stop_after not in STOP_POINTS:
            raise ControlError(f'"stop_after" is one of {", ".join(STOP_POINTS)}')
        return await central.pair(abandon, seconds(arguments, 'wait', 3.0), stop_after)

    async def sit(arguments: dict) -> dict:
        central = hostile(arguments)
        return await central.sit(seconds(arguments, 'seconds', 10.0))

    async def disconnect(arguments: dict) -> dict:
        central = hostile(arguments)
        await central.disconnect()
        return central.state()

    async def flood(arguments: dict) -> dict:
        central = hostile(arguments)
        count = arguments.get('count')
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 1000:
            raise ControlError('"count" is 1..1000')
        return await central.flood(count, seconds(arguments, 'wait', 1.0))

    for name, handler in {
        'add_hostile': add_hostile,
        'remove_hostile': remove_hostile,
        'hostile_replay': replay,
        'hostile_connect': connect,
        'hostile_encrypt': encrypt,
        'hostile_pair': pair,
        'hostile_sit': sit,
        'hostile_disconnect': disconnect,
        'hostile_flood': flood,
    }.items():
        protocol.register(name, handler)
