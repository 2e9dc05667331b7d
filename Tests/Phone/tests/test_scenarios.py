"""The ready-made scenarios as a head unit sees them over ANCS and AMS."""

from __future__ import annotations

import asyncio
import struct
import unittest

from harness import PairedPhoneTestCase
from test_ancs import get_notification_attributes, notification_source, read_response

from phone import scenarios
from phone.device.apple_services import (
    AMS_ENTITY_UPDATE_UUID,
    ANCS_CONTROL_POINT_UUID,
    ANCS_DATA_SOURCE_UUID,
    ANCS_NOTIFICATION_SOURCE_UUID,
)


class ScenarioTests(PairedPhoneTestCase):
    phone_mtu = 185

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        _connection, self.peer = await self.connect_encrypted()
        self.data = await self.subscribe(self.peer, ANCS_DATA_SOURCE_UUID)
        self.source = await self.subscribe(self.peer, ANCS_NOTIFICATION_SOURCE_UUID)

    async def test_maps_instruction_appears_updates_and_disappears(self) -> None:
        task = asyncio.create_task(scenarios.maps_navigation(self.anna, interval=0.25))
        seen = []
        while len(seen) < len(scenarios.MAPS_ROUTE) + 1:
            event = notification_source(await asyncio.wait_for(self.source.get(), 3))
            seen.append(event)
            if event['event_id'] != 2:
                # Fetch what the head unit would show now.
                request = get_notification_attributes(event['uid'], [(0, None), (1, 64), (3, 256)])
                self.assertIsNone(await self.write(self.peer, ANCS_CONTROL_POINT_UUID, request))
                _uid, attributes, _sizes = await read_response(self.data, 0, 3)
                self.assertEqual(attributes[0][1], b'com.google.Maps')
        result = await task
        self.assertEqual([e['event_id'] for e in seen], [0] + [1] * 6 + [2])
        self.assertEqual({e['uid'] for e in seen}, {seen[0]['uid']})  # one notification throughout
        self.assertEqual({e['category'] for e in seen}, {10})
        self.assertEqual(result['steps'], 7)
        titles = [e['title'] for e in self.sim.events if e['event'] == 'scenario' and 'title' in e]
        self.assertEqual(titles, [title for title, _message in scenarios.MAPS_ROUTE])

    async def test_burst_replaces_each_notification_after_it_was_fetched(self) -> None:
        fetched, removed = [], []

        async def settle(posted):
            # The client under test fetches it before the next one comes.
            event = notification_source(await asyncio.wait_for(self.source.get(), 3))
            while event['event_id'] == 2:  # the one before it going
                removed.append(event['uid'])
                event = notification_source(await asyncio.wait_for(self.source.get(), 3))
            self.assertEqual((event['event_id'], event['uid']), (0, posted['uid']))
            request = get_notification_attributes(event['uid'], [(0, None), (1, 64), (3, 256)])
            self.assertIsNone(await self.write(self.peer, ANCS_CONTROL_POINT_UUID, request))
            _uid, attributes, _sizes = await read_response(self.data, 0, 3)
            fetched.append(attributes[1][1])

        result = await scenarios.notification_burst(self.anna, count=3, settle=settle)
        self.assertEqual(result, {'count': 3})
        self.assertEqual(fetched, [b'In 100 m', b'In 110 m', b'In 120 m'])
        while len(removed) < 3:
            event = notification_source(await asyncio.wait_for(self.source.get(), 3))
            self.assertEqual(event['event_id'], 2)
            removed.append(event['uid'])
        self.assertEqual(len(set(removed)), 3)
        self.assertEqual(self.anna.list_notifications(), [])

    async def test_chat_and_mail_identified_without_their_text(self) -> None:
        result = await scenarios.chat_and_mail(self.anna)
        for _ in range(2):
            event = notification_source(await asyncio.wait_for(self.source.get(), 3))
            self.assertIn(event['category'], (4, 6))
            self.assertIsNone(await self.write(self.peer, ANCS_CONTROL_POINT_UUID,
                                               get_notification_attributes(event['uid'], [(0, None)])))
            await read_response(self.data, 0, 1)
        asked = [e['attributes'] for e in self.sim.events
                 if e['event'] == 'ancs_request' and e.get('id') in (result['chat'], result['mail'])]
        self.assertEqual(asked, [['app_identifier'], ['app_identifier']])
        apps = {e['app'] for e in self.sim.events if e['event'] == 'ancs_request'}
        self.assertEqual(apps, {'com.facebook.Messenger', 'com.apple.mobilemail'})

    async def test_music_changes_on_ams_and_as_a_notification(self) -> None:
        updates = await self.subscribe(self.peer, AMS_ENTITY_UPDATE_UUID)
        self.assertIsNone(await self.write(self.peer, AMS_ENTITY_UPDATE_UUID, bytes([2, 0, 2])))  # artist, title
        self.assertEqual(await self.drain(updates), [b'\x02\x00\x00', b'\x02\x02\x00'])  # nothing playing yet
        await scenarios.music_changes(self.anna, interval=0.05, notify_app='com.spotify.client')
        titles = [value[3:].decode() for value in await self.drain(updates) if value[1] == 2]
        self.assertEqual(titles, [track.title for track in scenarios.PLAYLIST])
        events = [notification_source(v) for v in await self.drain(self.source)]
        self.assertEqual([e['event_id'] for e in events], [0, 1, 1])
        self.assertEqual(events[0]['flags'] & 0x01, 0x01)  # silent
        self.assertEqual(events[0]['category'], 11)
        request = struct.pack('<BI', 0, events[0]['uid']) + b'\x01\x40\x00'
        self.assertIsNone(await self.write(self.peer, ANCS_CONTROL_POINT_UUID, request))
        _uid, attributes, _sizes = await read_response(self.data, 0, 1)
        self.assertEqual(attributes[0][1], scenarios.PLAYLIST[-1].title.encode())


    async def test_demo_round(self) -> None:
        await asyncio.wait_for(scenarios.demo(self.anna, interval=0, cycles=1), 10)
        order = [e['scenario'] for e in self.sim.events if e['event'] == 'scenario' and e['step'] == 'done']
        self.assertEqual(order, ['chat_and_mail', 'music', 'maps'])
        self.assertEqual(self.anna.list_notifications(), [])
        removed = [notification_source(v) for v in await self.drain(self.source) if v[0] == 2]
        self.assertEqual(len(removed), 4)  # chat, mail, music; the drive ended by itself


if __name__ == '__main__':
    unittest.main()
