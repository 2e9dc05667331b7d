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
