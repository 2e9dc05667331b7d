"""A hostile central: a device that is not the owner's phone and connects to the
head unit (the accessory) as an iPhone would, to try what a stranger in the car
park can try (docs/ROBUSTNESS.md, "Hostile centrals").

It is a Bumble Device on its own controller on the shared radio, with no GATT
services of its own and no Security Manager of its own: the SMP PDUs it sends
are written here byte by byte (Core spec Vol 3, Part H, 3.5), and what the head
unit answers is recorded, never acted on, so that each attempt stops exactly
where the attack wants it to.

- `replay(address)`: it takes another device's address (the bonded phone's
  current resolvable private address, heard on the air) as its own.
- `encrypt_with_made_up_key`: it starts encryption as a bonded phone would,
  with a key it does not have (the controllers see a MIC failure).
- `pair(abandon=...)`: a Pairing Request as iOS sends it and a public key;
  then silence (the attempt abandoned), a Pairing Failed, or a disconnection.
- `sit(seconds)`: connected, answering nothing (not even a Security Request).
- `flood(count, ...)`: one connection and Pairing Request after another, each
  from a new address.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable

from bumble import crypto, hci
from bumble.device import Device, DeviceConfiguration
from bumble.host import Host
from bumble.transport.common import AsyncPipeSink

from ..controller import CorrectedController, SimulatedLink
from ..controller.central_host import connect_advertiser
from .accessories import parse
from .phone import PhoneError

logger = logging.getLogger(__name__)

SMP_CID = 0x0006
# SMP codes (Vol 3, Part H, 3.3).
PAIRING_REQUEST = 0x01
PAIRING_RESPONSE = 0x02
PAIRING_FAILED = 0x05
SECURITY_REQUEST = 0x0B
PAIRING_PUBLIC_KEY = 0x0C
SMP_NAMES = {
    0x01: 'pairing_request', 0x02: 'pairing_response', 0x03: 'pairing_confirm', 0x04: 'pairing_random',
    0x05: 'pairing_failed', 0x0B: 'security_request', 0x0C: 'pairing_public_key', 0x0D: 'pairing_dhkey_check',
}
# iOS's Pairing Request: KeyboardDisplay, no OOB, AuthReq bonding | MITM | SC |
# CT2, 16-octet keys, EncKey and IdKey both ways.
IOS_PAIRING_REQUEST = bytes([PAIRING_REQUEST, 0x04, 0x00, 0x2D, 16, 0x03, 0x03])
# Pairing Failed reasons: Passkey Entry Failed, Unspecified Reason.
PASSKEY_ENTRY_FAILED = 0x01
UNSPECIFIED_REASON = 0x08
REMOTE_USER_TERMINATED = 0x13
ABANDON_MODES = ('silent', 'failed', 'disconnect')
# How far an attempt goes before it is abandoned: the Pairing Request alone, or
# also a public key (the head unit then shows a passkey for nobody).
STOP_POINTS = ('request', 'public_key')


def _text(address: hci.Address) -> str:
    return address.to_string(with_type_qualifier=False)


class HostileCentral:
    def __init__(self, name: str, link: SimulatedLink, emit: Callable[[dict], None], *,
                 link_loss_delay: float | None = None) -> None:
        self.name = name
        self.link = link
        self._emit_raw = emit
        self.address = hci.Address.generate_static_address()
        self.controller = CorrectedController(
            f'hostile-{name}', link, _text(self.address), manufacturer=0x004C, link_loss_delay=link_loss_delay
        )
        config = DeviceConfiguration()
        config.name = f'hostile {name}'
        config.gap_service_enabled = False
        config.address = self.address
        host = Host(self.controller, AsyncPipeSink(self.controller))
        self.device = Device(config=config, host=host)
        # Every SMP PDU the head unit sends is recorded, none is answered.
        self.device.smp_manager.on_smp_pdu = self._on_smp
        self.device.on('advertisement', self._on_advertisement)
        self.connection = None
        self.received: list[bytes] = []
        self._received_event = asyncio.Event()
        self._disconnected: asyncio.Future | None = None
        self.head_unit: hci.Address | None = None
        self._heard = asyncio.Event()
        self.powered = False

    def _emit(self, event: str, **fields) -> None:
        self._emit_raw({'event': event, 'phone': self.name, 'hostile': True, **fields})

    # ------------------------------------------------------------ the radio
    async def power_on(self) -> None:
        if self.powered:
            return
        await self.device.power_on()
        self.powered = True
        self._emit('powered', on=True, address=_text(self.device.random_address))

    async def power_off(self) -> None:
        if not self.powered:
            return
        await self.disconnect()
        if self.device.scanning:
            await self.device.stop_scanning()
        await self.device.power_off()
        self.powered = False
        if self.controller in self.link.controllers:
            self.link.remove_controller(self.controller)

    async def replay(self, address: str) -> str:
        """Take `address` (someone else's) as this device's own random address."""
        if self.connection is not None:
            raise PhoneError('cannot change the address while connected')
        scanning = self.device.scanning
        if scanning:
            await self.device.stop_scanning()
        new = hci.Address(address, hci.Address.RANDOM_DEVICE_ADDRESS)
        await self.device.send_sync_command(hci.HCI_LE_Set_Random_Address_Command(random_address=new))
        self.device.random_address = new
        self.device.static_address = new
        if scanning:
            await self._scan()
        self._emit('address_replayed', address=_text(new))
        return _text(new)

    async def new_address(self) -> str:
        """A fresh random static address, as a flood's next attacker."""
        return await self.replay(_text(hci.Address.generate_static_address()))

    def _on_advertisement(self, advertisement) -> None:
        if parse(bytes(advertisement.data)).ancs:
            self.head_unit = advertisement.address
            self._heard.set()

    async def _scan(self) -> None:
        await self.device.start_scanning(legacy=True, active=True, scan_interval=30.0, scan_window=30.0,
                                         filter_duplicates=False)

    async def find_head_unit(self, timeout: float = 10.0) -> hci.Address:
        """The accessory that asks for ANCS, as Settings → Bluetooth lists it."""
        self._heard.clear()
        self.head_unit = None
        await self._scan()
        try:
            await asyncio.wait_for(self._heard.wait(), timeout)
        except asyncio.TimeoutError as error:
            raise LookupError('no accessory soliciting ANCS heard') from error
        finally:
            if self.device.scanning:
                await self.device.stop_scanning()
        return self.head_unit

    # ---------------------------------------------------------------- links
    async def connect(self, timeout: float = 5.0, address: hci.Address | None = None):
        """Connect to the head unit as iOS does after a tap in Settings (to
        `address` when it was heard already)."""
        address = address or await self.find_head_unit(timeout)
        connection = await connect_advertiser(self.device, address, timeout)
        self.connection = connection
        self.received = []
        loop = asyncio.get_running_loop()
        self._disconnected = loop.create_future()
        started = time.monotonic()

        def on_disconnection(reason: int) -> None:
            held = round(time.monotonic() - started, 2)
            self._emit('disconnected', peer=_text(address), reason=reason, held_s=held)
            if self.connection is connection:
                self.connection = None
            if not self._disconnected.done():
                self._disconnected.set_result((reason, held))

        connection.on('disconnection', on_disconnection)
        self._emit('connected', peer=_text(address), address=_text(self.device.random_address), handle=connection.handle)
        return connection

    async def disconnect(self) -> None:
        if self.connection is not None:
            try:
                await self.connection.disconnect(REMOTE_USER_TERMINATED)
            except Exception as error:  # noqa: BLE001 - gone already
                logger.debug('[%s] disconnect: %r', self.name, error)
            self.connection = None

    async def wait_disconnected(self, timeout: float) -> tuple[int, float] | None:
        """(reason, seconds connected) once the link ends; None if it is still up."""
        if self._disconnected is None:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(self._disconnected), timeout)
        except asyncio.TimeoutError:
            return None

    # ------------------------------------------------------------------ SMP
    def _on_smp(self, connection, pdu: bytes) -> None:
        self.received.append(bytes(pdu))
        self._received_event.set()
        code = pdu[0] if pdu else None
        fields = {'code': SMP_NAMES.get(code, code)}
        if code == PAIRING_FAILED and len(pdu) > 1:
            fields['reason'] = pdu[1]
        self._emit('smp_received', **fields)

    def _send_smp(self, pdu: bytes) -> None:
        self.device.send_l2cap_pdu(self.connection.handle, SMP_CID, pdu)
        self._emit('smp_sent', code=SMP_NAMES.get(pdu[0], pdu[0]))

    async def _answer(self, timeout: float) -> bytes | None:
        """The head unit's next SMP PDU other than a Security Request, within `timeout`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        seen = len(self.received)
        while True:
            for pdu in self.received[seen:]:
                if pdu and pdu[0] != SECURITY_REQUEST:
                    return pdu
            seen = len(self.received)
            remaining = deadline - loop.time()
            if remaining <= 0 or self.connection is None:
                return None
            self._received_event.clear()
            try:
                await asyncio.wait_for(self._received_event.wait(), min(remaining, 0.2))
            except asyncio.TimeoutError:
                pass

    async def pair(self, abandon: str = 'silent', wait: float = 3.0, stop_after: str = 'public_key') -> dict:
        """A Pairing Request as iOS sends it and, with `stop_after` =
        `public_key`, a valid P-256 public key once the head unit responded (so
        that it computes its keys and shows a passkey); then the attempt is
        abandoned: no more PDUs (`silent`), a Pairing Failed (`failed`) or the
        link ended (`disconnect`). Reply: what the head unit answered (`answer`,
        its first PDU; `public_key`, whether it sent its own)."""
        if abandon not in ABANDON_MODES:
            raise ValueError(f'abandon is one of {", ".join(ABANDON_MODES)}')
        if stop_after not in STOP_POINTS:
            raise ValueError(f'stop_after is one of {", ".join(STOP_POINTS)}')
        if self.connection is None:
            raise PhoneError('not connected')
        self._send_smp(IOS_PAIRING_REQUEST)
        answer = await self._answer(wait)
        outcome = {'answer': SMP_NAMES.get(answer[0], answer[0]) if answer else None, 'public_key': False}
        if answer and answer[0] == PAIRING_FAILED and len(answer) > 1:
            outcome['reason'] = answer[1]
        if stop_after == 'public_key' and answer and answer[0] == PAIRING_RESPONSE and self.connection is not None:
            key = crypto.EccKey.generate()
            self._send_smp(bytes([PAIRING_PUBLIC_KEY]) + key.x[::-1] + key.y[::-1])
            reply = await self._answer(wait)
            outcome['public_key'] = bool(reply and reply[0] == PAIRING_PUBLIC_KEY)
            if reply and reply[0] == PAIRING_FAILED and len(reply) > 1:
                outcome['reason'] = reply[1]
        if self.connection is not None:
            if abandon == 'failed':
                self._send_smp(bytes([PAIRING_FAILED, PASSKEY_ENTRY_FAILED]))
            elif abandon == 'disconnect':
                await self.disconnect()
        return outcome

    async def encrypt_with_made_up_key(self, wait: float = 3.0) -> dict:
        """Start encryption as a bonded phone would, with a key this device does
        not have. Reply: `encrypted` and, if the link ended, `reason`."""
        if self.connection is None:
            raise PhoneError('not connected')
        handle = self.connection.handle
        # EDIV and Rand zero, as for a key from LE Secure Connections (Vol 3,
        # Part H, 2.4.4.1): the head unit answers with the bond's real key.
        await self.device.send_command(
            hci.HCI_LE_Enable_Encryption_Command(
                connection_handle=handle,
                random_number=bytes(8),
                encrypted_diversifier=0,
                long_term_key=os.urandom(16),
            )
        )
        ended = await self.wait_disconnected(wait)
        encrypted = bool(self.connection is not None and self.connection.encryption)
        result = {'encrypted': encrypted}
        if ended is not None:
            result['reason'] = ended[0]
        self._emit('encryption_attempted', **result)
        return result

    async def sit(self, seconds: float) -> dict:
        """Connected, and nothing more: every SMP PDU (a Security Request) unanswered.
        Reply: `dropped` and, if so, `reason` and `held_s`."""
        if self.connection is None:
            raise PhoneError('not connected')
        ended = await self.wait_disconnected(seconds)
        if ended is None:
            return {'dropped': False, 'held_s': seconds}
        return {'dropped': True, 'reason': ended[0], 'held_s': ended[1]}

    async def flood(self, count: int, wait: float = 1.0, connect_timeout: float = 2.0) -> dict:
        """`count` attempts, each from a new address: connect, Pairing Request,
        then gone. Reply: how many connected and how the head unit answered."""
        tally = {'attempts': count, 'connected': 0, 'pairing_responses': 0, 'public_keys': 0, 'pairing_failed': 0,
                 'unanswered': 0, 'dropped': 0, 'failures': {}}
        head_unit = await self.find_head_unit(5.0)
        for _ in range(count):
            await self.new_address()
            try:
                await self.connect(connect_timeout, head_unit)
            except Exception as error:  # noqa: BLE001 - refused, or nobody to connect to
                logger.debug('[%s] flood connection: %r', self.name, error)
                continue
            tally['connected'] += 1
            outcome = await self.pair('disconnect', wait)
            if outcome['answer'] == 'pairing_response':
                tally['pairing_responses'] += 1
                if outcome['public_key']:
                    tally['public_keys'] += 1
            elif outcome['answer'] == 'pairing_failed':
                tally['pairing_failed'] += 1
                reason = str(outcome.get('reason'))
                tally['failures'][reason] = tally['failures'].get(reason, 0) + 1
            elif self.connection is None:
                tally['dropped'] += 1
            else:
                tally['unanswered'] += 1
            await self.disconnect()
        self._emit('flood_done', **tally)
        return tally

    def state(self) -> dict:
        return {
            'phone': self.name,
            'hostile': True,
            'powered': self.powered,
            'address': _text(self.device.random_address),
            'connected': self.connection is not None,
        }

    async def close(self) -> None:
        try:
            await self.power_off()
        except Exception as error:  # noqa: BLE001 - closing anyway
            logger.debug('[%s] close: %r', self.name, error)
