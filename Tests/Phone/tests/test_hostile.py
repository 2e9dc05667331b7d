"""The hostile central (phone/device/hostile.py) against a Bumble peripheral
playing the head unit: each attempt goes exactly as far as it says, and what the
head unit answers is reported."""

from __future__ import annotations

import asyncio
import unittest

from test_settings_pairing import SettingsTestCase


class HostileCentralTests(SettingsTestCase):
    async def add_mallory(self) -> None:
        await self.command(cmd='add_hostile', name='mallory')
        await self.head_unit.advertise()

    async def test_a_pairing_request_and_a_public_key_then_a_pairing_failed(self) -> None:
        await self.add_mallory()
        await self.command(cmd='hostile_connect', name='mallory')
        await asyncio.wait_for(self.head_unit.connections.get(), 3)
        mark = self.sim.event_mark()
        reply = await self.command(cmd='hostile_pair', name='mallory', abandon='failed', wait=3)
        self.assertEqual(reply['answer'], 'pairing_response', reply)
        self.assertTrue(reply['public_key'], reply)
        # The head unit showed a passkey for an attempt nobody completes.
        passkey = await asyncio.wait_for(self.head_unit.delegate.shown.get(), 3)
        self.assertEqual(len(passkey), 6)
        self.assertIsNotNone(self.sim.find_event('smp_sent', mark, phone='mallory', code='pairing_failed'))
        # The Security Request the head unit sent on connection went unanswered.
        self.assertIsNotNone(self.sim.find_event('smp_received', phone='mallory', code='security_request'))
        self.assertEqual(self.sim.find_event('smp_sent', mark, phone='mallory', code='pairing_confirm'), None)

    async def test_address_replay_takes_the_phones_address(self) -> None:
        await self.add_mallory()
        replayed = await self.command(cmd='hostile_replay', name='mallory', phone='anna')
        self.assertEqual(replayed['address'], self.anna.address)
        connected = await self.command(cmd='hostile_connect', name='mallory')
        self.assertEqual(connected['address'], self.anna.address)
        connection = await asyncio.wait_for(self.head_unit.connections.get(), 3)
        self.assertEqual(connection.peer_address.to_string(False), self.anna.address)

    async def test_encryption_with_a_made_up_key_is_refused_by_a_head_unit_without_it(self) -> None:
        await self.add_mallory()
        await self.command(cmd='hostile_connect', name='mallory')
        reply = await self.command(cmd='hostile_encrypt', name='mallory', wait=1)
        self.assertFalse(reply['encrypted'], reply)

    async def test_sitting_reports_when_the_head_unit_drops_it(self) -> None:
        await self.add_mallory()
        await self.command(cmd='hostile_connect', name='mallory')
        connection = await asyncio.wait_for(self.head_unit.connections.get(), 3)
        asyncio.get_running_loop().call_later(0.5, lambda: asyncio.ensure_future(connection.disconnect(0x13)))
        reply = await self.command(cmd='hostile_sit', name='mallory', seconds=5)
        self.assertTrue(reply['dropped'], reply)
        self.assertEqual(reply['reason'], 0x13)
        self.assertLess(reply['held_s'], 3)

    async def test_a_flood_comes_from_a_new_address_each_time(self) -> None:
        await self.add_mallory()
        self.head_unit.security_request = False
        # The head unit advertises again after each link, as the firmware does.
        self.head_unit.device.on(
            'connection',
            lambda c: c.on('disconnection', lambda _r: asyncio.ensure_future(self.head_unit.advertise(rotate=False))),
        )
        reply = await self.command(cmd='hostile_flood', name='mallory', count=3, wait=1)
        self.assertEqual((reply['attempts'], reply['connected'], reply['pairing_responses']), (3, 3, 3), reply)
        addresses = {e['address'] for e in self.sim.events if e.get('event') == 'address_replayed'}
        self.assertEqual(len(addresses), 3)


if __name__ == '__main__':
    unittest.main()
