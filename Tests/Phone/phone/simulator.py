"""The whole simulation in one object: radio, head-unit controller, H4 server, phones.

Importable API (the control protocol and the CLI are thin layers over it):

    sim = Simulator(on_event=print)
    port = await sim.start(hci_port=0)
    anna = await sim.add_phone('anna', paired_client='UNPAIRED')
    mark = sim.event_mark()
    ...  # the head unit connects to tcp:127.0.0.1:<port>
    await sim.wait_for('connected', phone='anna', after=mark)
    await anna.unpair()
    await sim.stop()
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable

from .controller import ControllerVariant, CorrectedController, H4Server, HostInterface, SimulatedLink
from .device.identity import IdentityStore
from .device.phone import Phone, PhoneError, PhoneSettings

logger = logging.getLogger(__name__)

# A Raspberry Pi's public address block: the head unit's controller.
DEFAULT_HEAD_UNIT_ADDRESS = 'DC:A6:32:00:00:01'
BROADCOM = 0x000F


class Simulator:
    def __init__(
        self,
        *,
        acl_size: int = 27,
        acl_buffers: int = 8,
        head_unit_address: str = DEFAULT_HEAD_UNIT_ADDRESS,
        state_dir: str | None = None,
        link_loss_delay: float | None = None,
        advertising_sets: int = 0,
        controller_variant: ControllerVariant = ControllerVariant(),
        on_event: Callable[[dict], None] | None = None,
    ) -> None:
        self.acl_size = acl_size
        self.acl_buffers = acl_buffers
        self.head_unit_address = head_unit_address
        self.link_loss_delay = link_loss_delay
        # How many advertising sets the head unit's controller has (advertising_sets.py;
        # 0: legacy advertising only).
        self.advertising_sets = int(advertising_sets)
        # Where the head unit's controller differs from the default (key size
        # command, LL Privacy, list sizes).
        self.controller_variant = controller_variant
        self.state_dir = state_dir
        self.identities = IdentityStore(state_dir)
        self._on_event = on_event
        self.events: list[dict] = []
        self._event_waiters: list[asyncio.Future] = []
        self.phones: dict[str, Phone] = {}
        self.link: SimulatedLink | None = None
        self.controller: CorrectedController | None = None
        self.host_interface: HostInterface | None = None
        self.server: H4Server | None = None

    # ------------------------------------------------------------------ events
    def emit(self, event: dict) -> None:
        self.events.append(event)
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:  # noqa: BLE001 - an observer must not break the radio
                logger.exception('event observer failed')
        for waiter in list(self._event_waiters):
            if not waiter.done():
                waiter.set_result(None)

    def event_mark(self) -> int:
        """Position in the event history; pass it as `after` to wait_for."""
        return len(self.events)

    def find_event(self, name: str, after: int = 0, **fields) -> dict | None:
        for event in self.events[after:]:
            if event.get('event') == name and all(event.get(k) == v for k, v in fields.items()):
                return event
        return None

    async def wait_for(self, name: str, timeout: float = 10.0, after: int = 0, **fields) -> dict:
        """The first event called `name` with these field values at or after `after`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = self.find_event(name, after, **fields)
            if found is not None:
                return found
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f'no {name} event with {fields} within {timeout} s')
            waiter = loop.create_future()
            self._event_waiters.append(waiter)
            try:
                await asyncio.wait_for(waiter, remaining)
            except asyncio.TimeoutError:
                pass
            finally:
                self._event_waiters.remove(waiter)

    # --------------------------------------------------------------- lifecycle
    async def start(self, hci_port: int = 0) -> int:
        self.link = SimulatedLink()
        self.controller = CorrectedController(
            'head-unit',
            self.link,
            self.head_unit_address,
            acl_size=self.acl_size,
            acl_buffers=self.acl_buffers,
            manufacturer=BROADCOM,
            link_loss_delay=self.link_loss_delay,
            advertising_sets=self.advertising_sets,
            variant=self.controller_variant,
        )
        if self.controller.broadcom is not None:
            # The kernel's btbcm has loaded the patch RAM (image/boot-test --board rpi3).
            self.controller.broadcom.on_launch = lambda chip: self.emit(
                {'event': 'patch_ram_launched', 'chip': chip.name, 'records': chip.patch_records,
                 'bytes': chip.patch_bytes, 'baud_rate': chip.baud_rate})
        self.host_interface = HostInterface(
            self.controller,
            acl_size=self.acl_size,
            acl_buffers=self.acl_buffers,
            on_violation=lambda detail: self.emit({'event': 'hci_violation', 'detail': detail}),
        )
        self.server = H4Server(
            deliver=self.host_interface.from_host,
            attach=self._host_attached,
            detach=self._host_detached,
            on_client=lambda state, peer: self.emit({'event': 'hci_client', 'state': state, 'peer': peer}),
        )
        return await self.server.start(hci_port)

    def _host_attached(self, send) -> None:
        # A new host sees a controller fresh from power-up.
        self.controller.reset_state()
        self.host_interface.attach(send)

    def _host_detached(self) -> None:
        self.host_interface.detach()
        self.controller.reset_state()

    @property
    def hci_port(self) -> int:
        return self.server.port if self.server else 0

    async def stop(self) -> None:
        for phone in list(self.phones.values()):
            await phone.close()
        if self.server is not None:
            await self.server.close()
            self.server = None

    # ------------------------------------------------------------------ phones
    async def add_phone(
        self,
        name: str,
        *,
        power_on: bool = True,
        **settings,
    ) -> Phone:
        if not name:
            raise PhoneError('a phone needs a name')
        if name in self.phones:
            raise PhoneError(f'phone {name!r} exists already')
        if self.link is None:
            raise PhoneError('simulator not started')
        phone_settings = PhoneSettings(name=name, **settings)
        identity = self.identities.identity(name)
        phone = Phone(
            phone_settings,
            identity,
            self.link,
            self.emit,
            link_loss_delay=self.link_loss_delay,
            bond_file=os.path.join(self.state_dir, 'bonds.json') if self.state_dir else None,
        )
        self.phones[name] = phone
        if power_on:
            await phone.power_on()
        return phone

    def phone(self, name: str) -> Phone:
        phone = self.phones.get(name)
        if phone is None:
            raise PhoneError(f'no phone {name!r}')
        return phone

    async def remove_phone(self, name: str) -> None:
        phone = self.phone(name)
        await phone.power_off()
        await phone.close()
        del self.phones[name]
