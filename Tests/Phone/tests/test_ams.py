"""The phone as an AMS Media Source, driven by a Bumble central acting as the
Media Remote."""

from __future__ import annotations

import asyncio
import unittest

from harness import PairedPhoneTestCase

from phone.device.apple_services import (
    AMS_ENTITY_ATTRIBUTE_UUID,
    AMS_ENTITY_UPDATE_UUID,
    AMS_REMOTE_COMMAND_UUID,
)

PLAYER, QUEUE, TRACK = 0, 1, 2
TRUNCATED = 0x01


def update(value: bytes) -> tuple[int, int, int, str]:
    return value[0], value[1], value[2], value[3:].decode('utf-8')


class AmsTests(PairedPhoneTestCase):
    phone_mtu = 185

    async def registered(self, peer):
        """Subscribe to Entity Update and register for everything; returns the
        queue and the initial values by (entity, attribute)."""
        updates = await self.subscribe(peer, AMS_ENTITY_UPDATE_UUID)
        for entity, attributes in ((PLAYER, b'\x00\x01\x02'), (QUEUE, b'\x00\x01\x02\x03'), (TRACK, b'\x00\x01\x02\x03')):
            self.assertIsNone(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([entity]) + attributes))
        initial = {}
        for _ in range(11):
            entity, attribute, flags, value = update(await asyncio.wait_for(updates.get(), 3))
            self.assertEqual(flags, 0)
            initial[(entity, attribute)] = value
        return updates, initial

    async def test_remote_command_list_follows_the_player(self) -> None:
        _connection, peer = await self.connect_encrypted()
        commands = await self.subscribe(peer, AMS_REMOTE_COMMAND_UUID)
        self.assertEqual(await asyncio.wait_for(commands.get(), 3), b'')  # no media app yet
        await self.anna.play_track('Blinding Lights', 'The Weeknd', 'After Hours', 200.04, player='Spotify')
        self.assertEqual(await asyncio.wait_for(commands.get(), 3), bytes(range(11)))
        await self.anna.set_supported_commands(['play', 'pause', 'toggle_play_pause'])
        self.assertEqual(await asyncio.wait_for(commands.get(), 3), b'\x00\x01\x02')
        await self.anna.stop_player()
        self.assertEqual(await asyncio.wait_for(commands.get(), 3), b'')
        notified = [e['commands'] for e in self.sim.events if e['event'] == 'ams_commands_notified']
        self.assertEqual(notified[2], ['play', 'pause', 'toggle_play_pause'])

    async def test_registration_sends_current_values_then_changes(self) -> None:
        await self.anna.play_track('Blinding Lights', 'The Weeknd', 'After Hours', 200.04, player='Spotify',
                                   elapsed=12.345, queue_index=2, queue_count=10)
        await self.anna.set_volume(0.5)
        _connection, peer = await self.connect_encrypted()
        updates, initial = await self.registered(peer)
        self.assertEqual(initial, {
            (PLAYER, 0): 'Spotify', (PLAYER, 1): '1,1.0,12.345', (PLAYER, 2): '0.5',
            (QUEUE, 0): '2', (QUEUE, 1): '10', (QUEUE, 2): '0', (QUEUE, 3): '0',
            (TRACK, 0): 'The Weeknd', (TRACK, 1): 'After Hours', (TRACK, 2): 'Blinding Lights', (TRACK, 3): '200.040',
        })
        registered = [e for e in self.sim.events if e['event'] == 'ams_registered']
        self.assertEqual([e['entity'] for e in registered], ['player', 'queue', 'track'])

        await self.anna.set_playback('paused', elapsed=30.5)
        self.assertEqual(update(await asyncio.wait_for(updates.get(), 3)), (PLAYER, 1, 0, '0,0.0,30.500'))
        await self.anna.play_track('Levitating', 'Dua Lipa', 'Future Nostalgia', 203.06, queue_index=3)
        changed = {update(v)[:2]: update(v)[3] for v in await self.drain(updates)}
        self.assertEqual(changed, {
            (PLAYER, 1): '1,1.0,0.000', (QUEUE, 0): '3',
            (TRACK, 0): 'Dua Lipa', (TRACK, 1): 'Future Nostalgia', (TRACK, 2): 'Levitating', (TRACK, 3): '203.060',
        })

        # A new registration for an entity replaces the old one.
        self.assertIsNone(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([TRACK, 2])))
        self.assertEqual(update(await asyncio.wait_for(updates.get(), 3)), (TRACK, 2, 0, 'Levitating'))
        await self.anna.play_track('Starboy', 'The Weeknd', 'Starboy', 230.0)
        changed = [update(v)[:2] for v in await self.drain(updates)]
        self.assertNotIn((TRACK, 0), changed)
        self.assertIn((TRACK, 2), changed)

    async def test_errors(self) -> None:
        _connection, peer = await self.connect_encrypted()
        # Not subscribed to Entity Update: Invalid State.
        self.assertEqual(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([TRACK, 0])), 0xA0)
        self.assertEqual(await self.write(peer, AMS_ENTITY_ATTRIBUTE_UUID, bytes([TRACK, 0])), 0xA0)
        updates = await self.subscribe(peer, AMS_ENTITY_UPDATE_UUID)
        self.assertEqual(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([TRACK])), 0xA1)
        self.assertEqual(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([7, 0])), 0xA2)
        self.assertEqual(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([PLAYER, 0, 9])), 0xA2)
        self.assertEqual(await self.write(peer, AMS_ENTITY_ATTRIBUTE_UUID, bytes([TRACK])), 0xA1)
        self.assertEqual(await self.write(peer, AMS_ENTITY_ATTRIBUTE_UUID, bytes([QUEUE, 4])), 0xA2)
        self.assertEqual(await self.read(peer, AMS_ENTITY_ATTRIBUTE_UUID), 0xA0)  # nothing selected
        self.assertEqual(await self.drain(updates), [])
        # Remote commands: undefined, malformed, and not offered without a player.
        self.assertEqual(await self.write(peer, AMS_REMOTE_COMMAND_UUID, b'\x0e'), 0xA1)
        self.assertEqual(await self.write(peer, AMS_REMOTE_COMMAND_UUID, b'\x00\x01'), 0xA1)
        self.assertEqual(await self.write(peer, AMS_REMOTE_COMMAND_UUID, b'\x00'), 0xA0)
        results = [e['result'] for e in self.sim.events if e['event'] == 'ams_command']
        self.assertEqual(results, ['0xA1', '0xA1', '0xA0'])

    async def test_remote_commands_act_on_the_player(self) -> None:
        await self.anna.set_playlist([
            {'title': 'One', 'artist': 'A', 'duration': 100},
            {'title': 'Two', 'artist': 'B', 'duration': 120},
        ], player='Music')
        await self.anna.set_volume(0.5)
        _connection, peer = await self.connect_encrypted()
        updates, initial = await self.registered(peer)
        self.assertEqual((initial[(TRACK, 2)], initial[(QUEUE, 1)]), ('One', '2'))
        self.assertIsNone(await self.write(peer, AMS_REMOTE_COMMAND_UUID, b'\x01'))  # pause
        entity, attribute, _flags, value = update(await asyncio.wait_for(updates.get(), 3))
        self.assertEqual((entity, attribute, value.split(',')[:2]), (PLAYER, 1, ['0', '0.0']))
        self.assertIsNone(await self.write(peer, AMS_REMOTE_COMMAND_UUID, b'\x05'))  # volume up
        self.assertEqual(update(await asyncio.wait_for(updates.get(), 3)), (PLAYER, 2, 0, '0.5625'))
        self.assertIsNone(await self.write(peer, AMS_REMOTE_COMMAND_UUID, b'\x03'))  # next track
        changed = {update(v)[:2]: update(v)[3] for v in await self.drain(updates)}
        self.assertEqual((changed[(TRACK, 2)], changed[(QUEUE, 0)]), ('Two', '1'))
        self.assertEqual(self.anna.state()['player'], 'Music')
        commands = [e['command'] for e in self.sim.events if e['event'] == 'ams_command']
        self.assertEqual(commands, ['pause', 'volume_up', 'next_track'])
        await self.anna.set_supported_commands(['play'])
        self.assertEqual(await self.write(peer, AMS_REMOTE_COMMAND_UUID, b'\x03'), 0xA0)

    async def test_dropped_ams_subscriptions(self) -> None:
        await self.anna.play_track('One', 'A', player='Music')
        _connection, peer = await self.connect_encrypted()
        updates, _initial = await self.registered(peer)
        self.anna.drop_subscriptions(services=('ams',))
        await self.anna.play_track('Two', 'B')
        self.assertEqual(await self.drain(updates), [])
        self.assertEqual(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([TRACK, 2])), 0xA0)
        updates = await self.subscribe(peer, AMS_ENTITY_UPDATE_UUID)
        self.assertIsNone(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([TRACK, 2])))
        self.assertEqual(update(await asyncio.wait_for(updates.get(), 3)), (TRACK, 2, 0, 'Two'))


class AmsTruncationTests(PairedPhoneTestCase):
    """At MTU 23 an Entity Update carries at most 23 - 3 - 3 = 17 bytes of value."""

    async def test_truncated_value_read_whole_through_entity_attribute(self) -> None:
        title = 'Ünïcödé title that is much longer than seventeen bytes ' * 3
        await self.anna.play_track(title, 'Artist', player='Music')
        _connection, peer = await self.connect_encrypted()
        updates = await self.subscribe(peer, AMS_ENTITY_UPDATE_UUID)
        self.assertIsNone(await self.write(peer, AMS_ENTITY_UPDATE_UUID, bytes([TRACK, 0, 2])))
        artist = await asyncio.wait_for(updates.get(), 3)
        self.assertEqual(artist, bytes([TRACK, 0, 0]) + b'Artist')
        cut = await asyncio.wait_for(updates.get(), 3)
        self.assertEqual(cut[:3], bytes([TRACK, 2, TRUNCATED]))
        self.assertLessEqual(len(cut), 20)
        self.assertTrue(title.encode().startswith(cut[3:]))
        cut[3:].decode('utf-8')  # cut at a character boundary
        sent = await self.sim.wait_for('ams_update_sent', phone='anna', attribute='track.title')
        self.assertTrue(sent['truncated'])

        self.assertIsNone(await self.write(peer, AMS_ENTITY_ATTRIBUTE_UUID, bytes([TRACK, 2])))
        whole = await self.read(peer, AMS_ENTITY_ATTRIBUTE_UUID)  # Read, then Read Blobs
        self.assertEqual(whole, title.encode())
        reads = [e for e in self.sim.events if e['event'] == 'ams_read']
        self.assertGreater(len(reads), 1)
        self.assertEqual(reads[0]['attribute'], 'track.title')
        self.assertEqual(reads[0]['length'], len(title.encode()))


if __name__ == '__main__':
    unittest.main()
