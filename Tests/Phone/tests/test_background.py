"""The Server app in the background (docs/PROTOCOL.md §7), as a Bumble central sees it:
no service UUID and no name, Apple's overflow area, about one advertisement a second,
still connectable; the address rotating on a timer; the app back in the foreground."""

from __future__ import annotations

import asyncio
import json
import unittest

from harness import SimulatorTestCase, bumble_central, characteristic, connect_and_discover

from bumble import hci
from bumble.smp import AddressResolver

from phone.control import ControlProtocol
from phone.device.background import overflow_bit
from phone.device.navigation_service import SERVER_NAME_UUID, SERVICE_UUID

COMPLETE_UUID128, INCOMPLETE_UUID128 = 0x07, 0x06
SHORTENED_NAME, COMPLETE_NAME = 0x08, 0x09
MANUFACTURER_DATA = 0xFF


def ad_structures(report) -> list[tuple[int, bytes]]:
    """The AD structures of an advertisement and its scan response (Bumble merges them)."""
    return [(int(ad_type), bytes(value)) for ad_type, value in report.data.ad_structures]


class BackgroundTests(SimulatorTestCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna', server_name='Anna-iPhone-7F3A')
        self.central, self.transport, _tap = await bumble_central(self.port)

    async def asyncTearDown(self) -> None:
        await self.transport.close()
        await super().asyncTearDown()

    async def reports(self, seconds: float) -> list:
        """Every advertisement report of the phone's current address (no duplicate filtering)."""
        seen: list = []
        self.central.on('advertisement', seen.append)
        await self.central.start_scanning(active=True, filter_duplicates=False)
        await asyncio.sleep(seconds)
        await self.central.stop_scanning()
        self.central.remove_listener('advertisement', seen.append)
        return [report for report in seen if str(report.address).split('/')[0] == self.anna.address]

    def resolves(self, address: str) -> bool:
        resolver = AddressResolver([(self.anna.identity.irk, hci.Address(self.anna.identity.identity_address))])
        return resolver.resolve(hci.Address(address)) is not None

    async def test_background_advertising_has_no_uuid_and_no_name(self) -> None:
        await self.anna.set_app_state('background')
        reports = await self.reports(2.5)
        self.assertTrue(reports, 'no advertisement in the background')
        self.assertTrue(all(report.is_connectable for report in reports))
        structures = [s for report in reports for s in ad_structures(report)]
        types = {ad_type for ad_type, _ in structures}
        self.assertFalse(types & {COMPLETE_UUID128, INCOMPLETE_UUID128, SHORTENED_NAME, COMPLETE_NAME}, types)
        manufacturer = [value for ad_type, value in structures if ad_type == MANUFACTURER_DATA]
        self.assertTrue(manufacturer)
        for value in manufacturer:
            self.assertEqual(value[:3], bytes([0x4C, 0x00, 0x01]))  # Apple, overflow area
            bitmask = value[3:]
            self.assertEqual(len(bitmask), 16)
            bit = overflow_bit(SERVICE_UUID)
            self.assertTrue(bitmask[bit // 8] & (0x80 >> (bit % 8)))
            self.assertEqual(sum(bin(b).count('1') for b in bitmask), 1)

    async def test_background_interval_is_about_a_second(self) -> None:
        foreground = await self.reports(2.0)
        await self.anna.set_app_state('background')
        background = await self.reports(3.5)
        # One advertisement per advertising event (Bumble merges the scan response in):
        # 3 or 4 in 3.5 s; at the foreground's 100 ms it would be 35.
        self.assertGreaterEqual(len(background), 2)
        self.assertLessEqual(len(background), 5)
        self.assertGreater(len(foreground), 10)

    async def test_background_phone_is_connectable_and_serves_gatt(self) -> None:
        await self.anna.set_app_state('background')
        _connection, peer = await connect_and_discover(self.central, self.anna.device.random_address)
        self.assertEqual(await characteristic(peer, SERVER_NAME_UUID).read_value(), b'Anna-iPhone-7F3A')

    async def test_foreground_again_brings_uuid_and_name_back(self) -> None:
        mark = self.sim.event_mark()
        await self.anna.set_app_state('background')
        await self.anna.set_app_state('foreground')
        reports = await self.reports(0.8)
        structures = [s for report in reports for s in ad_structures(report)]
        self.assertIn(COMPLETE_UUID128, {ad_type for ad_type, _ in structures})
        self.assertIn((COMPLETE_NAME, b'iPhone (Anna)'), structures)
        states = [e['state'] for e in self.sim.events[mark:] if e.get('event') == 'app']
        self.assertEqual(states, ['background', 'foreground'])

    async def test_address_rotates_on_its_timer_and_never_while_connected(self) -> None:
        first = self.anna.address
        mark = self.sim.event_mark()
        self.anna.set_address_rotation(0.4)
        rotated = await self.sim.wait_for('address_rotated', phone='anna', after=mark, timeout=3)
        self.assertEqual(rotated['old'], first)
        self.assertTrue(self.resolves(rotated['new']))
        # Connected: the link's address stays, the rotation waits for the link to end.
        connection, _peer = await connect_and_discover(self.central, self.anna.device.random_address)
        held = self.anna.address
        mark = self.sim.event_mark()
        await asyncio.sleep(1.0)
        self.assertIsNone(self.sim.find_event('address_rotated', after=mark))
        self.assertEqual(self.anna.address, held)
        await connection.disconnect()
        after = await self.sim.wait_for('address_rotated', phone='anna', after=mark, timeout=3)
        self.assertEqual(after['old'], held)
        self.assertNotEqual(after['new'], held)
        self.assertTrue(self.resolves(after['new']))
        # The phone is found under the new address.
        self.anna.set_address_rotation(None)
        reports = await self.reports(0.5)
        self.assertTrue(reports)

    async def test_control_commands(self) -> None:
        protocol = ControlProtocol(self.sim, lambda: None)

        async def send(command: dict) -> dict:
            return await protocol.handle_line(json.dumps(command))

        reply = await send({'cmd': 'app_background', 'id': 1, 'phone': 'anna'})
        self.assertTrue(reply['ok'], reply)
        self.assertEqual(reply['app'], 'background')
        reply = await send({'cmd': 'set_address_rotation', 'id': 2, 'phone': 'anna', 'seconds': 600})
        self.assertEqual(reply['address_rotation'], 600)
        reply = await send({'cmd': 'set_address_rotation', 'id': 3, 'phone': 'anna', 'seconds': 0})
        self.assertFalse(reply['ok'])
        reply = await send({'cmd': 'set_address_rotation', 'id': 4, 'phone': 'anna'})
        self.assertFalse(reply['ok'])
        reply = await send({'cmd': 'set_address_rotation', 'id': 5, 'phone': 'anna', 'seconds': None})
        self.assertIsNone(reply['address_rotation'])
        reply = await send({'cmd': 'app_foreground', 'id': 6, 'phone': 'anna'})
        self.assertEqual(reply['app'], 'foreground')
        # add_phone takes the background settings too.
        reply = await send({'cmd': 'add_phone', 'id': 7, 'name': 'bob', 'address_rotation_s': 900,
                            'background_advertising_interval_ms': 1200})
        self.assertTrue(reply['ok'], reply)
        self.assertEqual(reply['address_rotation'], 900)


if __name__ == '__main__':
    unittest.main()
