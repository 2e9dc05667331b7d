"""The CLI and its JSON-lines control protocol, as a test harness drives them."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import unittest

import harness  # noqa: F401 - puts the package on sys.path

PHONE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ControlProtocolTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, '-m', 'phone', '--hci-port', '0', '--phone', 'anna', '--exit-on-eof',
            cwd=PHONE_DIR,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        self.lines: list[dict] = []

    async def asyncTearDown(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    async def next_event(self, timeout: float = 10.0) -> dict:
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        self.assertTrue(line, 'control channel closed')
        event = json.loads(line)  # every stdout line must be JSON
        self.lines.append(event)
        return event

    async def send(self, command: dict) -> dict:
        self.process.stdin.write((json.dumps(command) + '\n').encode())
        await self.process.stdin.drain()
        while True:
            event = await self.next_event()
            if event.get('id') == command.get('id') and event['event'] in ('reply', 'error'):
                return event

    async def test_session(self) -> None:
        ready = await self.next_event()
        self.assertEqual(ready['event'], 'ready')
        self.assertIsInstance(ready['hci_port'], int)
        self.assertGreater(ready['hci_port'], 0)
        self.assertEqual(ready['phones'][0]['phone'], 'anna')

        reply = await self.send({'cmd': 'add_phone', 'id': 1, 'name': 'bob', 'server_name': 'Bob-iPhone-0001',
                                 'paired_client': 'HU-1', 'local_name': 'iPhone (Bob)'})
        self.assertTrue(reply['ok'])
        self.assertEqual(reply['server_name'], 'Bob-iPhone-0001')

        reply = await self.send({'cmd': 'state', 'id': 'x', 'phone': 'bob'})
        self.assertEqual((reply['paired_client'], reply['connected']), ('HU-1', False))
        old_address = reply['address']

        reply = await self.send({'cmd': 'unpair', 'id': 2, 'phone': 'bob'})
        self.assertEqual(reply['paired_client'], 'UNPAIRED')

        reply = await self.send({'cmd': 'rotate_address', 'id': 3, 'phone': 'bob'})
        self.assertNotEqual(reply['address'], old_address)
        self.assertTrue([e for e in self.lines if e['event'] == 'address_rotated'])
        # An address replay: Bob sends from Anna's private address.
        anna = await self.send({'cmd': 'state', 'id': 30, 'phone': 'anna'})
        reply = await self.send({'cmd': 'rotate_address', 'id': 31, 'phone': 'bob', 'address': anna['address']})
        self.assertEqual(reply['address'], anna['address'])
        reply = await self.send({'cmd': 'rotate_address', 'id': 32, 'phone': 'bob', 'address': '12:34'})
        self.assertEqual(reply['event'], 'error')

        reply = await self.send({'cmd': 'set_paired', 'id': 4, 'phone': 'bob', 'value': 'x' * 33})
        self.assertEqual(reply['event'], 'error')
        reply = await self.send({'cmd': 'disconnect', 'id': 5, 'phone': 'bob'})
        self.assertEqual(reply['event'], 'error')
        reply = await self.send({'cmd': 'state', 'id': 6, 'phone': 'nobody'})
        self.assertEqual(reply['event'], 'error')
        reply = await self.send({'cmd': 'frobnicate', 'id': 7})
        self.assertEqual(reply['event'], 'error')

        reply = await self.send({'cmd': 'type_passkey', 'id': 9, 'phone': 'bob', 'digits': '123456'})
        self.assertEqual(reply['event'], 'error')  # no pairing waiting
        reply = await self.send({'cmd': 'set_pairing_mode', 'id': 10, 'phone': 'bob', 'mode': 'manual'})
        self.assertEqual(reply['pairing'], 'manual')
        reply = await self.send({'cmd': 'forget_bond', 'id': 11, 'phone': 'bob'})
        self.assertEqual(reply['forgotten'], [])

        reply = await self.send({'cmd': 'quit', 'id': 8})
        self.assertTrue(reply['ok'])
        self.assertEqual(await asyncio.wait_for(self.process.wait(), 10), 0)

    async def test_notification_and_media_commands(self) -> None:
        await self.next_event()
        reply = await self.send({'cmd': 'post_notification', 'id': 1, 'phone': 'anna', 'app': 'com.google.Maps',
                                 'category': 'Location', 'title': 'In 500 m', 'message': 'Turn left onto Market Street'})
        self.assertTrue(reply['ok'], reply)
        notification = reply['notification']
        self.assertEqual((notification['id'], notification['category_id'], notification['uid']), (1, 10, None))
        reply = await self.send({'cmd': 'modify_notification', 'id': 2, 'phone': 'anna', 'notification': 1,
                                 'title': 'In 200 m'})
        self.assertEqual(reply['notification']['title'], 'In 200 m')
        reply = await self.send({'cmd': 'post_notification', 'id': 3, 'phone': 'anna', 'app': 'x', 'titel': 'typo'})
        self.assertEqual(reply['event'], 'error')
        self.assertIn('titel', reply['error'])
        reply = await self.send({'cmd': 'post_notification', 'id': 4, 'phone': 'anna', 'app': 'x', 'category': 'gossip'})
        self.assertEqual(reply['event'], 'error')
        reply = await self.send({'cmd': 'list_notifications', 'id': 5, 'phone': 'anna'})
        self.assertEqual([n['title'] for n in reply['notifications']], ['In 200 m'])
        reply = await self.send({'cmd': 'remove_notification', 'id': 6, 'phone': 'anna', 'notification': 1})
        self.assertTrue(reply['ok'])
        reply = await self.send({'cmd': 'remove_notification', 'id': 7, 'phone': 'anna', 'notification': 1})
        self.assertEqual(reply['event'], 'error')
        reply = await self.send({'cmd': 'set_sharing', 'id': 8, 'phone': 'anna', 'on': False})
        self.assertFalse(reply['sharing'])
        reply = await self.send({'cmd': 'drop_subscriptions', 'id': 9, 'phone': 'anna', 'control_point': 'normal'})
        self.assertEqual(reply['peers'], [])

        reply = await self.send({'cmd': 'play_track', 'id': 10, 'phone': 'anna', 'title': 'Levitating',
                                 'artist': 'Dua Lipa', 'duration': 203.06, 'player': 'Spotify'})
        self.assertEqual((reply['now_playing']['player'], reply['now_playing']['state']), ('Spotify', 'playing'))
        reply = await self.send({'cmd': 'set_playback', 'id': 11, 'phone': 'anna', 'state': 'paused', 'elapsed': 42})
        self.assertEqual((reply['now_playing']['state'], reply['now_playing']['elapsed_s']), ('paused', 42.0))
        reply = await self.send({'cmd': 'set_volume', 'id': 12, 'phone': 'anna', 'volume': 0.25})
        self.assertEqual(reply['now_playing']['volume'], 0.25)
        reply = await self.send({'cmd': 'set_supported_commands', 'id': 13, 'phone': 'anna', 'commands': ['play', 1]})
        self.assertEqual(reply['now_playing']['supported_commands'], ['play', 'pause'])

        reply = await self.send({'cmd': 'run_scenario', 'id': 14, 'phone': 'anna', 'scenario': 'maps',
                                 'interval': 0, 'wait': True})
        self.assertEqual(reply['result']['steps'], 7)
        steps = [e['step'] for e in self.lines if e['event'] == 'scenario']
        self.assertEqual(steps, [0, 1, 2, 3, 4, 5, 6, 'arrived', 'done'])
        reply = await self.send({'cmd': 'run_scenario', 'id': 15, 'phone': 'anna', 'scenario': 'karaoke'})
        self.assertEqual(reply['event'], 'error')
        reply = await self.send({'cmd': 'quit', 'id': 16})
        self.assertTrue(reply['ok'])

    async def test_bad_json_is_an_error_not_a_crash(self) -> None:
        await self.next_event()
        self.process.stdin.write(b'this is not json\n')
        await self.process.stdin.drain()
        event = await self.next_event()
        while event['event'] != 'error':
            self.assertNotIn(event['event'], ('reply', 'stopped'))
            event = await self.next_event()
        self.assertIsNone(event['id'])
        reply = await self.send({'cmd': 'ping', 'id': 1})
        self.assertTrue(reply['ok'])
        self.process.stdin.close()
        self.assertEqual(await asyncio.wait_for(self.process.wait(), 10), 0)


if __name__ == '__main__':
    unittest.main()
