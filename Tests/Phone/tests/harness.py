"""Test helpers: a raw HCI host and a Bumble central, both over the H4 TCP server."""

from __future__ import annotations

import asyncio
import json
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bumble import att, hci  # noqa: E402
from bumble.core import UUID  # noqa: E402
from bumble.device import Device, Peer  # noqa: E402
from bumble.pairing import PairingConfig, PairingDelegate  # noqa: E402
from bumble.transport import open_transport  # noqa: E402

from phone import Simulator  # noqa: E402
from phone.controller.h4_server import H4Framer  # noqa: E402

EVENT_COMMAND_COMPLETE = 0x0E
EVENT_COMMAND_STATUS = 0x0F
EVENT_LE_META = 0x3E


def le_meta(event: bytes) -> int | None:
    return event[3] if len(event) > 3 and event[1] == EVENT_LE_META else None


class RawHci:
    """A minimal HCI host speaking H4 over TCP, to look at the controller byte by byte."""

    def __init__(self) -> None:
        self.events: list[bytes] = []
        self.acl: list[bytes] = []
        self._changed = asyncio.Event()
        self._reader_task: asyncio.Task | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self, port: int) -> None:
        reader, self.writer = await asyncio.open_connection('127.0.0.1', port)
        self._reader_task = asyncio.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        framer = H4Framer()
        while True:
            data = await reader.read(65536)
            if not data:
                break
            for packet in framer.feed(data):
                (self.events if packet[0] == 0x04 else self.acl).append(packet)
            self._changed.set()

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self._reader_task is not None:
            self._reader_task.cancel()

    def send(self, packet: bytes) -> None:
        self.writer.write(packet)

    def send_command(self, opcode: int, parameters: bytes = b'') -> int:
        mark = len(self.events)
        self.send(struct.pack('<BHB', 0x01, opcode, len(parameters)) + parameters)
        return mark

    def send_acl(self, handle: int, data: bytes, pb: int = 0b00) -> None:
        self.send(struct.pack('<BHH', 0x02, handle | pb << 12, len(data)) + data)

    async def wait_event(self, predicate, after: int = 0, timeout: float = 3.0) -> bytes:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        index = after
        while True:
            while index < len(self.events):
                event = self.events[index]
                index += 1
                if predicate(event):
                    return event
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError('event not received')
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except asyncio.TimeoutError:
                pass

    async def command(self, opcode: int, parameters: bytes = b'') -> bytes:
        """Send a command, return its Command Complete or Command Status event."""
        mark = self.send_command(opcode, parameters)

        def answers(event: bytes) -> bool:
            if event[1] == EVENT_COMMAND_COMPLETE:
                return struct.unpack_from('<H', event, 4)[0] == opcode
            if event[1] == EVENT_COMMAND_STATUS:
                return struct.unpack_from('<H', event, 5)[0] == opcode
            return False

        return await self.wait_event(answers, mark)

    async def ok(self, opcode: int, parameters: bytes = b'') -> bytes:
        """A Command Complete with success; returns the return parameters after status."""
        event = await self.command(opcode, parameters)
        assert event[1] == EVENT_COMMAND_COMPLETE, event.hex()
        assert event[6] == 0, f'command 0x{opcode:04X} failed with 0x{event[6]:02X}'
        return event[7:]

    # ------------------------------------------------------------ procedures
    async def init(self) -> None:
        await self.ok(0x0C03)  # Reset
        await self.ok(0x0C01, (0x3DBFF807FFFBFFFF).to_bytes(8, 'little'))  # typical mask, LE meta on
        await self.ok(0x2001, (0x1F | 1 << 6).to_bytes(8, 'little'))  # + data length change

    async def start_scan(self, active: bool = True, filter_duplicates: bool = False) -> None:
        await self.ok(0x200B, struct.pack('<BHHBB', int(active), 0x10, 0x10, 0, 0))
        await self.ok(0x200C, bytes([1, int(filter_duplicates)]))

    async def stop_scan(self) -> None:
        await self.ok(0x200C, bytes([0, 0]))

    async def connect_le(self, address: hci.Address, timeout: float = 5.0) -> int:
        await self.ok(0x2005, bytes(hci.Address('C0:11:22:33:44:55')))  # random static
        mark = len(self.events)
        parameters = struct.pack('<HHBB', 0x10, 0x10, 0, 1) + bytes(address)
        parameters += struct.pack('<BHHHHHH', 1, 24, 24, 0, 100, 0, 0)
        status = await self.command(0x200D, parameters)
        assert status[3] == 0, status.hex()
        event = await self.wait_event(lambda e: le_meta(e) in (0x01, 0x0A), mark, timeout)
        assert event[4] == 0, event.hex()
        return struct.unpack_from('<H', event, 5)[0]


class TapSource:
    """Sits between a transport source and a Bumble host to record ACL packets."""

    def __init__(self, source) -> None:
        self.source = source
        self.sink = None
        self.acl_lengths: list[tuple[int, int]] = []  # (pb flag, length)
        source.set_packet_sink(self)

    def set_packet_sink(self, sink) -> None:
        self.sink = sink

    def on_packet(self, packet: bytes) -> None:
        if packet[0] == 0x02:
            handle_and_flags, length = struct.unpack_from('<HH', packet, 1)
            self.acl_lengths.append(((handle_and_flags >> 12) & 3, length))
        if self.sink:
            self.sink.on_packet(packet)


async def bumble_central(port: int):
    """A Bumble Device as the head unit, over `tcp-client:` to our H4 server."""
    transport = await open_transport(f'tcp-client:127.0.0.1:{port}')
    tap = TapSource(transport.source)
    device = Device.with_hci('central', hci.Address('C0:98:76:54:32:10'), tap, transport.sink)
    await device.power_on()
    return device, transport, tap


async def connect_and_discover(central, address: hci.Address):
    """Connect the central to a phone and discover its GATT database."""
    connection = await central.connect(address, own_address_type=hci.OwnAddressType.RANDOM, timeout=5)
    peer = Peer(connection)
    await peer.discover_services()
    await peer.discover_characteristics()
    return connection, peer


async def att_error(operation) -> int | None:
    """The ATT error code an operation ends with, or None."""
    try:
        await operation
    except att.ATT_Error as error:
        return error.error_code
    return None


def characteristic(peer: Peer, uuid: str):
    found = peer.get_characteristics_by_uuid(UUID(uuid))
    assert found, f'characteristic {uuid} not found'
    return found[0]


class SimulatorTestCase(unittest.IsolatedAsyncioTestCase):
    """Starts a Simulator with a fast link-loss delay; stops it afterwards."""

    acl_size = 27
    # The head unit's controller (capabilities.ControllerVariant; None: the default).
    controller_variant = None
    # Its advertising sets (advertising_sets.py; 0: legacy advertising only).
    advertising_sets = 0

    async def asyncSetUp(self) -> None:
        variant = {'controller_variant': self.controller_variant} if self.controller_variant else {}
        self.sim = Simulator(acl_size=self.acl_size, link_loss_delay=0.2, advertising_sets=self.advertising_sets, **variant)
        self.port = await self.sim.start(0)
        self.violations = []

    async def asyncTearDown(self) -> None:
        await self.sim.stop()

    def hci_violations(self) -> list[dict]:
        return [e for e in self.sim.events if e.get('event') == 'hci_violation']


class ControlTestCase(SimulatorTestCase):
    """A simulator driven through its control protocol, as the head unit's tests drive it."""

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        from phone.control import ControlProtocol

        self.protocol = ControlProtocol(self.sim, lambda: None)

    async def command(self, command: str, ok: bool = True, **arguments) -> dict:
        """The reply to `command`, which must be JSON and say `ok`."""
        reply = await self.protocol.handle_line(json.dumps({'cmd': command, 'id': 7, **arguments}))
        json.dumps(reply)
        self.assertEqual(reply['ok'], ok, reply)
        return reply


class RawHostTestCase(SimulatorTestCase):
    """Phone `anna` on the air and a raw HCI host, initialised, on the controller."""

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna', server_name='Anna-iPhone-7F3A')
        self.hci = RawHci()
        await self.hci.connect(self.port)
        await self.hci.init()

    async def asyncTearDown(self) -> None:
        await self.hci.close()
        await super().asyncTearDown()


def just_works_pairing(_connection=None) -> PairingConfig:
    """A head unit without IO: Just Works, Secure Connections, bonding."""
    return PairingConfig(
        sc=True,
        mitm=False,
        bonding=True,
        delegate=PairingDelegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT),
        identity_address_type=PairingConfig.AddressType.RANDOM,
    )


class PairedPhoneTestCase(SimulatorTestCase):
    """A phone (`self.anna`) and a Bumble central that connects, pairs (Just Works,
    bonded) and encrypts: the state in which ANCS and AMS answer.

    `phone_mtu`: the ATT MTU the phone asks for after connecting (None: it never
    asks, and the link stays at 23)."""

    phone_mtu: int | None = None

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna', mtu=self.phone_mtu)
        self.central, self.transport, _tap = await bumble_central(self.port)
        self.central.pairing_config_factory = just_works_pairing

    async def asyncTearDown(self) -> None:
        await self.transport.close()
        await super().asyncTearDown()

    async def connect_encrypted(self, pair: bool = True):
        """Connect, let the MTU exchange finish, discover; pair (first time) or
        encrypt with the bond. Returns (connection, peer)."""
        mark = self.sim.event_mark()
        connection = await self.central.connect(
            self.anna.device.random_address, own_address_type=hci.OwnAddressType.RANDOM, timeout=5
        )
        if self.phone_mtu:
            await self.sim.wait_for('mtu', phone='anna', after=mark)
        peer = Peer(connection)
        await peer.discover_services()
        await peer.discover_characteristics()
        if pair:
            await connection.pair()
        else:
            await connection.encrypt()
        await self.sim.wait_for('encrypted', phone='anna', encrypted=True, after=mark)
        return connection, peer

    @staticmethod
    async def subscribe(peer: Peer, uuid: str) -> asyncio.Queue:
        """Subscribe to notifications; returns the queue that receives their values."""
        received: asyncio.Queue = asyncio.Queue()
        await characteristic(peer, uuid).subscribe(lambda value: received.put_nowait(bytes(value)))
        return received

    @staticmethod
    async def write(peer: Peer, uuid: str, value: bytes) -> int | None:
        """Write with response; the ATT error code, or None on success."""
        try:
            await characteristic(peer, uuid).write_value(value, with_response=True)
        except att.ATT_Error as error:
            return error.error_code
        return None

    @staticmethod
    async def read(peer: Peer, uuid: str) -> bytes | int:
        """Read (long reads followed); the value, or the ATT error code."""
        try:
            return bytes(await characteristic(peer, uuid).read_value())
        except att.ATT_Error as error:
            return error.error_code

    @staticmethod
    async def drain(queue: asyncio.Queue, quiet: float = 0.2) -> list[bytes]:
        """Everything that arrives until the queue stays empty for `quiet` seconds."""
        values = []
        while True:
            try:
                values.append(await asyncio.wait_for(queue.get(), quiet))
            except asyncio.TimeoutError:
                return values


def local_devices() -> tuple[Device, Device]:
    """A phone and a head unit as two plain Bumble devices on one LocalLink,
    not yet powered on (services may still be added)."""
    from bumble.controller import Controller
    from bumble.host import Host
    from bumble.link import LocalLink

    link = LocalLink()
    devices = []
    for name, address in (('phone', 'F0:F1:F2:F3:F4:F5'), ('headunit', 'F5:F4:F3:F2:F1:F0')):
        controller = Controller(name, link=link)
        device = Device(address=address)
        device.host = Host(controller, controller)
        devices.append(device)
    return devices[0], devices[1]
