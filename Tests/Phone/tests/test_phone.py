"""The phones as a Bumble central (standing in for the head unit) sees them."""

from __future__ import annotations

import asyncio
import unittest

from harness import SimulatorTestCase, bumble_central, characteristic, connect_and_discover

from bumble import att, hci
from bumble.core import UUID
from bumble.device import Peer

from phone.device.navigation_service import PAIRED_CLIENT_NAME_UUID, SERVER_NAME_UUID, SERVICE_UUID

LOCAL_NAME = 0x09


class PhoneTests(SimulatorTestCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna', server_name='Anna-iPhone-7F3A')
        self.central, self.transport, self.tap = await bumble_central(self.port)

    async def asyncTearDown(self) -> None:
        await self.transport.close()
        await super().asyncTearDown()

    async def scan(self, seconds: float = 0.6) -> dict:
        """Advertisements by address string, last one wins."""
        found: dict[str, object] = {}
        self.central.on('advertisement', lambda advertisement: found.__setitem__(str(advertisement.address), advertisement))
        await self.central.start_scanning(active=True)
        await asyncio.sleep(seconds)
        await self.central.stop_scanning()
        return found

    async def connect(self, phone) -> tuple[object, Peer]:
        return await connect_and_discover(self.central, phone.device.random_address)

    @staticmethod
    def characteristic(peer: Peer, uuid: str):
        return characteristic(peer, uuid)

    async def write_error(self, characteristic, value: bytes) -> int | None:
        try:
            await characteristic.write_value(value, with_response=True)
        except att.ATT_Error as error:
            return error.error_code
        return None

    async def test_scan_finds_phone_with_name_and_service(self) -> None:
        found = await self.scan()
        advertisement = found.get(str(self.anna.device.random_address))
        self.assertIsNotNone(advertisement)
        self.assertEqual(advertisement.data.get(LOCAL_NAME), 'iPhone (Anna)')
        uuids = advertisement.data.get(0x07)
        self.assertIn(UUID(SERVICE_UUID), uuids)
        self.assertTrue(advertisement.is_connectable)

    async def test_read_names_and_write_rules(self) -> None:
        mark = self.sim.event_mark()
        _connection, peer = await self.connect(self.anna)
        server_name = self.characteristic(peer, SERVER_NAME_UUID)
        paired = self.characteristic(peer, PAIRED_CLIENT_NAME_UUID)
        self.assertEqual(await server_name.read_value(), b'Anna-iPhone-7F3A')
        self.assertEqual(await paired.read_value(), b'UNPAIRED')
        # SERVER NAME is read-only.
        self.assertEqual(await self.write_error(server_name, b'X'), 0x03)
        self.assertEqual(await server_name.read_value(), b'Anna-iPhone-7F3A')
        # Length rules.
        self.assertEqual(await self.write_error(paired, b''), 0x0D)
        self.assertEqual(await self.write_error(paired, b'A' * 33), 0x0D)
        # Pairing, another client refused, the same client accepted again.
        self.assertIsNone(await self.write_error(paired, b'HU-3F9A21'))
        self.assertEqual(await self.write_error(paired, b'HU-000000'), 0x80)
        self.assertEqual(await paired.read_value(), b'HU-3F9A21')
        self.assertIsNone(await self.write_error(paired, b'HU-3F9A21'))
        # A 32-byte name (a long write at the default MTU would also work).
        self.assertEqual(self.anna.paired.value, 'HU-3F9A21')
        # UNPAIRED is always accepted, then anyone may pair.
        self.assertIsNone(await self.write_error(paired, b'UNPAIRED'))
        self.assertIsNone(await self.write_error(paired, b'B' * 32))
        self.assertEqual(self.anna.paired.value, 'B' * 32)
        write = await self.sim.wait_for('gatt_write', phone='anna', after=mark, result='0x80')
        self.assertEqual(write['value'], 'HU-000000')
        self.assertEqual(write['paired_client'], 'HU-3F9A21')
        await self.sim.wait_for('gatt_read', phone='anna', characteristic='server_name', after=mark)

    async def test_unpair_notifies_subscribers(self) -> None:
        _connection, peer = await self.connect(self.anna)
        paired = self.characteristic(peer, PAIRED_CLIENT_NAME_UUID)
        await paired.write_value(b'HU-3F9A21', with_response=True)
        received: asyncio.Queue = asyncio.Queue()
        await paired.subscribe(received.put_nowait)
        await self.sim.wait_for('subscribed', phone='anna', notify=True)
        await self.anna.unpair()
        value = await asyncio.wait_for(received.get(), 3)
        self.assertEqual(value, b'UNPAIRED')
        self.assertEqual(await paired.read_value(), b'UNPAIRED')
        notified = await self.sim.wait_for('notified', phone='anna')
        self.assertEqual(len(notified['peers']), 1)

    async def test_acl_towards_host_is_fragmented(self) -> None:
        _connection, peer = await self.connect(self.anna)
        await asyncio.sleep(0.2)  # the phone's MTU exchange (517) has completed
        await peer.discover_all()
        lengths = [length for _pb, length in self.tap.acl_lengths]
        self.assertTrue(lengths)
        self.assertLessEqual(max(lengths), 27)
        self.assertIn(0b01, [pb for pb, _length in self.tap.acl_lengths], 'no continuation fragments')
        self.assertFalse(self.hci_violations())

    async def test_rotate_address_only_when_not_connected(self) -> None:
        old = self.anna.address
        connection, _peer = await self.connect(self.anna)
        with self.assertRaises(Exception):
            await self.anna.rotate_address()
        mark = self.sim.event_mark()
        await connection.disconnect()
        await self.sim.wait_for('disconnected', phone='anna', after=mark)
        new = await self.anna.rotate_address()
        self.assertNotEqual(old, new)
        found = await self.scan()
        self.assertIn(new, [key.split('/')[0] for key in found])
        self.assertNotIn(old, [key.split('/')[0] for key in found])
        # The new address is resolvable with the phone's IRK.
        from bumble.smp import AddressResolver

        resolver = AddressResolver([(self.anna.identity.irk, hci.Address(self.anna.identity.identity_address))])
        self.assertIsNotNone(resolver.resolve(hci.Address(new)))

    async def test_phone_disconnect_and_power_cycle(self) -> None:
        connection, _peer = await self.connect(self.anna)
        reasons: asyncio.Queue = asyncio.Queue()
        connection.on('disconnection', reasons.put_nowait)
        await self.anna.power_off()
        self.assertEqual(await asyncio.wait_for(reasons.get(), 3), 0x15)
        found = await self.scan(0.4)
        self.assertNotIn(self.anna.address, [key.split('/')[0] for key in found])
        await self.anna.power_on()
        found = await self.scan(0.4)
        self.assertIn(self.anna.address, [key.split('/')[0] for key in found])

    async def test_out_of_range_times_out_both_sides(self) -> None:
        connection, _peer = await self.connect(self.anna)
        reasons: asyncio.Queue = asyncio.Queue()
        connection.on('disconnection', reasons.put_nowait)
        mark = self.sim.event_mark()
        await self.anna.go_out_of_range()
        self.assertEqual(await asyncio.wait_for(reasons.get(), 3), 0x08)
        event = await self.sim.wait_for('disconnected', phone='anna', after=mark)
        self.assertEqual(event['reason'], 0x08)
        await self.anna.come_into_range()

    async def test_several_phones(self) -> None:
        bob = await self.sim.add_phone('bob', paired_client='HU-OTHER')
        found = await self.scan()
        keys = [key.split('/')[0] for key in found]
        self.assertIn(self.anna.address, keys)
        self.assertIn(bob.address, keys)
        _connection, peer = await self.connect(bob)
        paired = self.characteristic(peer, PAIRED_CLIENT_NAME_UUID)
        self.assertEqual(await paired.read_value(), b'HU-OTHER')
        self.assertEqual(await self.write_error(paired, b'HU-3F9A21'), 0x80)
        server_name = await self.characteristic(peer, SERVER_NAME_UUID).read_value()
        self.assertTrue(server_name.startswith(b'Bob-iPhone-'))


if __name__ == '__main__':
    unittest.main()
