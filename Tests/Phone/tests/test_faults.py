"""The fault commands (phone/faults.py) and the controller correction they rely on,
seen from a raw HCI host."""

from __future__ import annotations

import asyncio
import json
import random
import struct
import unittest

from harness import PairedPhoneTestCase, RawHci, RawHostTestCase, characteristic as characteristic_of, le_meta

from bumble import hci

from phone.control import ControlProtocol
from phone.device.apple_services import (
    ANCS_CONTROL_POINT_UUID,
    ANCS_DATA_SOURCE_UUID,
    ANCS_NOTIFICATION_SOURCE_UUID,
)
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

    async def test_short_encryption_key_is_reported_the_times_asked(self) -> None:
        await self.run_command('short_encryption_key', key_size=7, times=1)
        # An unknown handle is answered as ever, and leaves the fault armed.
        event = await self.hci.command(0x1408, struct.pack('<H', 0x0EFF))
        self.assertEqual(event[6], 0x02)
        handle = await self.hci.connect_le(self.anna.device.random_address)
        sizes = []
        for _ in range(2):
            answer = await self.hci.ok(0x1408, struct.pack('<H', handle))
            self.assertEqual(struct.unpack_from('<H', answer)[0], handle)
            sizes.append(answer[2])
        self.assertEqual(sizes, [7, 16])
        struck = await self.sim.wait_for('fault', fault='short_encryption_key')
        self.assertEqual((struck['key_size'], struck['left']), (7, 0))

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



class NotificationSourceFaultTests(PairedPhoneTestCase):
    """stop_notification_source: the pushes stop, the Control Point answers on."""

    async def test_pushes_stop_the_control_point_answers_and_a_cccd_write_brings_them_back(self) -> None:
        control = ControlProtocol(self.sim, on_quit=lambda: None)
        _connection, peer = await self.connect_encrypted()
        data = await self.subscribe(peer, ANCS_DATA_SOURCE_UUID)
        source = await self.subscribe(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m')
        self.assertEqual(len(await self.drain(source)), 1)

        reply = await control.handle_line(json.dumps({'cmd': 'stop_notification_source', 'id': 1, 'phone': 'anna'}))
        self.assertTrue(reply['ok'], reply)
        self.assertEqual(reply['peers'], ['C0:98:76:54:32:10'])
        maps = await self.anna.post_notification('com.google.Maps', 'location', title='In 300 m')
        self.assertEqual(await self.drain(source), [])
        withheld = await self.sim.wait_for('fault', fault='stop_notification_source', state='withheld')
        self.assertEqual((withheld['event_name'], withheld['uid']), ('added', maps['uid']))
        # The session runs on: the probe gets its 0xA2, the silent notification its attributes.
        probe = struct.pack('<BI', 0, 0xFFFFFFFF) + b'\x00'
        self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, probe), 0xA2)
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID, struct.pack('<BI', 0, maps['uid']) + b'\x00'))
        answer = b''.join(await self.drain(data))
        self.assertEqual(answer, struct.pack('<BIBH', 0, maps['uid'], 0, 15) + b'com.google.Maps')
        self.assertEqual(self.anna.state()['ancs_sessions'], ['C0:98:76:54:32:10'])

        # Writing the CCCD again (off, then on) brings the pushes back, with a replay.
        await characteristic_of(peer, ANCS_NOTIFICATION_SOURCE_UUID).unsubscribe()
        recovered = await self.sim.wait_for('fault', fault='stop_notification_source', state='recovered')
        self.assertFalse(recovered['enabled'])
        source = await self.subscribe(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        replay = [struct.unpack('<BBBBI', v) for v in await self.drain(source)]
        self.assertEqual([(event, flags & 0x04) for event, flags, _c, _n, _u in replay], [(0, 0x04), (0, 0x04)])
        await self.anna.post_notification('com.google.Maps', 'location', title='In 100 m')
        self.assertEqual(len(await self.drain(source)), 1)


if __name__ == '__main__':
    unittest.main()
