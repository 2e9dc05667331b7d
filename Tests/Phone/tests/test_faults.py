"""The fault commands (phone/faults.py) and the controller correction they rely on,
seen from a raw HCI host."""

from __future__ import annotations

import asyncio
import json
import random
import struct
import unittest

from harness import RawHci, RawHostTestCase, le_meta

from bumble import hci

from phone.control import ControlProtocol
from phone.faults import flood_events


class FaultTests(RawHostTestCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.control = ControlProtocol(self.sim, on_quit=lambda: None)

    async def run_command(self, name: str, **arguments) -> dict:
        reply = await self.control.handle_line(json.dumps({'cmd': name, 'id': 1, **arguments}))
        self.assertTrue(reply['ok'], reply)
        return reply

    async def test_hardware_error_reaches_the_host(self) -> None:
        mark = len(self.hci.events)
        await self.run_command('hardware_error', code=0x42)
        event = await self.hci.wait_event(lambda e: e[1] == 0x10, mark)
        self.assertEqual(event[3], 0x42)

    async def test_connect_ind_ignored_by_a_peripheral_still_connected_fails(self) -> None:
        mark = self.sim.event_mark()
        address = self.anna.device.random_address
        await self.hci.connect_le(address)
        await self.sim.wait_for('connected', phone='anna', after=mark)
        # The reset drops our side at once; the phone holds on until it times out.
        self.sim.link_loss_delay = None
        for connection in self.anna.controller.le_connections.values():
            self.anna.controller.link_states[connection.handle].supervision_timeout = 200
        await self.hci.ok(0x0C03)
        await self.hci.init()
        events_mark = len(self.hci.events)
        await self.hci.ok(0x2005, bytes(hci.Address('C0:11:22:33:44:55')))
        parameters = struct.pack('<HHBB', 0x10, 0x10, 0, 1) + bytes(address)
        parameters += struct.pack('<BHHHHHH', 1, 24, 24, 0, 100, 0, 0)
        await self.hci.command(0x200D, parameters)
        event = await self.hci.wait_event(lambda e: le_meta(e) in (0x01, 0x0A), events_mark)
        self.assertEqual(event[4], 0x3E)  # Connection Failed to be Established

    async def test_unplug_refuses_then_serves_a_fresh_controller(self) -> None:
        await self.run_command('hci_unplug', seconds=0.3)
        await self.sim.wait_for('hci_client', state='disconnected')
        with self.assertRaises(OSError):
            await asyncio.open_connection('127.0.0.1', self.port)
        await self.sim.wait_for('fault', fault='hci_unplug', state='plugged', timeout=3)
        again = RawHci()
        await again.connect(self.port)
        try:
            await again.init()
        finally:
            await again.close()

    async def test_flood_reaches_a_scanning_host_only(self) -> None:
        await self.run_command('flood_advertising', rate=2000, seconds=0.3, malformed=0.3)
        ended = await self.sim.wait_for('fault', fault='flood_advertising', state='ended', timeout=3)
        self.assertEqual(ended['reports'], 0)
        await self.hci.start_scan()
        await self.run_command('flood_advertising', rate=2000, seconds=0.5, malformed=0.3)
        mark = self.sim.event_mark()
        ended = await self.sim.wait_for('fault', fault='flood_advertising', state='ended', after=mark, timeout=3)
        self.assertGreater(ended['reports'], 500)
        self.assertFalse(self.hci_violations())


def reports_fit(body: bytes) -> bool:
    """True when an LE Advertising Report event body walks to its exact end."""
    if len(body) < 2:
        return False
    offset = 2
    for _ in range(body[1]):
        if offset + 9 > len(body) or body[offset] > 4:
            return False
        offset += 9 + body[offset + 8] + 1
    return offset == len(body)


def ad_fits(data: bytes) -> bool:
    """True when AD structures cover the data exactly, none empty."""
    offset = 0
    while offset < len(data):
        length = data[offset]
        if length == 0 or offset + 1 + length > len(data):
            return False
        offset += 1 + length
    return True


class FloodContentTests(unittest.TestCase):
    def test_events_are_framed_and_some_are_malformed(self) -> None:
        rng = random.Random(7)
        broken_events = broken_data = 0
        for _ in range(2000):
            packet, count = flood_events(rng, malformed=0.3)
            self.assertEqual(packet[:2], bytes([0x04, 0x3E]))
            self.assertEqual(packet[2], len(packet) - 3)  # the H4 framing is always right
            self.assertGreaterEqual(count, 1)
            body = packet[3:]
            if not reports_fit(body):
                broken_events += 1
                continue
            offset = 2
            for _ in range(body[1]):
                length = body[offset + 8]
                broken_data += not ad_fits(body[offset + 9 : offset + 9 + length])
                offset += 9 + length + 1
        self.assertGreater(broken_events, 100)
        self.assertGreater(broken_data, 300)


if __name__ == '__main__':
    unittest.main()
