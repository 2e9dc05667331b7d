"""The NotifBridge control commands (phone/notifbridge/commands.py and
faults.py) through the control protocol, against the fake receiver: every
reply is JSON and says what the receiver did."""

from __future__ import annotations

import asyncio
import json

from harness import ControlTestCase
from notifbridge_fake import ADDRESS, FakeReceiver

RECEIVER = ADDRESS.to_string(with_type_qualifier=False)


class NotifBridgeCommands(ControlTestCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.receiver = FakeReceiver()
        await self.receiver.start(self.port)
        await self.command('add_phone', name='anna')
        self.connected = await self.command('notifbridge_connect', phone='anna', address=RECEIVER,
                                            chunk_timeout=2.0, receipt_timeout=2.0)
        await self.command('notifbridge_keys', phone='anna', identifier='HEAD-UNIT-1')

    async def asyncTearDown(self) -> None:
        await self.command('notifbridge_disconnect', phone='anna')
        await self.receiver.close()
        await super().asyncTearDown()

    async def test_connect_keys_post_displayed_remove(self) -> None:
        self.assertTrue(self.connected['notifbridge']['connected'])
        self.assertEqual(self.connected['notifbridge']['mtu'], 185)
        posted = await self.command('notifbridge_post', phone='anna', app='com.google.Maps', title='In 500 m',
                                    body='Turn left', source_name='Google Maps')
        self.assertTrue(posted['received'])
        self.assertEqual(posted['kind'], 'add')
        displayed = await self.command('notifbridge_wait_displayed', phone='anna', event_id=posted['event_id'],
                                       timeout=3)
        self.assertEqual(displayed['displayed']['identity']['notificationIdentifier'], posted['notification_id'])
        updated = await self.command('notifbridge_post', phone='anna', app='com.google.Maps', title='In 200 m',
                                     body='Turn left', notification_id=posted['notification_id'])
        self.assertEqual(updated['kind'], 'update')
        removed = await self.command('notifbridge_remove', phone='anna', app='com.google.Maps')
        self.assertEqual(removed['notification_id'], posted['notification_id'])
        self.assertTrue((await self.command('notifbridge_remove_all', phone='anna'))['received'])
        state = (await self.command('notifbridge_state', phone='anna'))['notifbridge']
        self.assertEqual(len(state['receipts']), 2 + 4)
        self.assertEqual(state['queue'], [])
        self.assertEqual([e['kind'] for e in self.receiver.events], ['add', 'update', 'remove', 'removeAll'])
        self.assertTrue(any(e.get('event') == 'notifbridge_receipt' and e.get('phone') == 'anna'
                            for e in self.sim.events))

    async def test_connect_through_the_picker(self) -> None:
        await self.command('notifbridge_disconnect', phone='anna')  # the receiver advertises again
        await self.command('add_phone', name='bob')
        reply = await self.command('notifbridge_connect', phone='bob', scan_timeout=3, pair=True)
        self.assertEqual((reply['address'], reply['name']), (RECEIVER, 'Car NotifBdg'))
        self.assertTrue(reply['notifbridge']['connected'])
        (link,) = self.sim.phone('bob').device.connections.values()
        self.assertTrue(link.encryption, 'pair: true pairs the new link')
        await self.command('notifbridge_disconnect', phone='bob')
        await self.command('notifbridge_connect', ok=False, phone='bob', name='Other NotifBdg', scan_timeout=0.3)

    async def test_wait_false_replies_at_once_and_reports_the_outcome(self) -> None:
        mark = self.sim.event_mark()
        reply = await self.command('notifbridge_post', phone='anna', app='com.google.Maps', title='In 500 m',
                                   body='Turn left', wait=False)
        self.assertEqual(reply['started'], True)
        done = await self.sim.wait_for('notifbridge_done', after=mark, cmd='notifbridge_post', id=7, timeout=5)
        self.assertTrue(done['ok'])
        self.assertTrue(done['received'])
        await self.command('notifbridge_remove', phone='anna', app='com.nobody', wait=False)
        failed = await self.sim.wait_for('notifbridge_done', after=mark, cmd='notifbridge_remove', timeout=5)
        self.assertFalse(failed['ok'])
        self.assertIn('com.nobody', failed['error'])

    async def test_rotate_then_post_with_the_older_generation(self) -> None:
        rotated = await self.command('notifbridge_rotate', phone='anna')
        previous = rotated['previous']
        self.assertNotEqual(rotated['generation']['exchange_id'], previous['exchange_id'])
        self.assertEqual(len(rotated['notifbridge']['generations']), 2)
        self.assertEqual(len(self.receiver.generations), 2)
        posted = await self.command('notifbridge_post', phone='anna', app='com.google.Maps', title='In 50 m',
                                    body='Arrive', exchange_id=previous['exchange_id'].lower())
        self.assertTrue(posted['received'])
        self.assertEqual(json.loads(self.receiver.envelope_frames[-1])['sessionID'], previous['session'])
        await self.command('notifbridge_post', ok=False, phone='anna', app='com.google.Maps',
                           exchange_id='00000000-0000-0000-0000-000000000000')

    async def test_prepare_and_activate_apart(self) -> None:
        prepared = await self.command('notifbridge_prepare', phone='anna', identifier='HEAD-UNIT-2')
        self.assertEqual(len(prepared['notifbridge']['prepared']), 1)
        self.assertEqual(len(self.receiver.generations), 1, 'not activated yet')
        activated = await self.command('notifbridge_activate', phone='anna')
        self.assertEqual(activated['generation']['exchange_id'], prepared['generation']['exchange_id'])
        self.assertEqual(activated['notifbridge']['prepared'], [])
        self.assertEqual(activated['notifbridge']['generations'][0]['identifier'], 'HEAD-UNIT-2')
        self.assertEqual(len(self.receiver.generations), 2)
        await self.command('notifbridge_activate', ok=False, phone='anna')

    async def test_faults(self) -> None:
        await self.command('notifbridge_post', phone='anna', app='com.apple.Music', title='Song', body='Artist')
        duplicate = await self.command('notifbridge_duplicate', phone='anna')
        self.assertTrue(duplicate['received'])
        self.assertEqual(self.receiver.envelope_frames[-1], self.receiver.envelope_frames[-2])
        tampered = await self.command('notifbridge_tamper', phone='anna', timeout=0.3)
        self.assertFalse(tampered['received'])
        self.assertEqual(self.receiver.refused[-1], 'no key opens the envelope')
        early = await self.command('notifbridge_before_key', phone='anna', delay=0.3, timeout=3)
        self.assertFalse(early['received_before_activate'])
        self.assertTrue(early['received'])
        self.assertEqual(self.receiver.events[-1]['notification']['notificationIdentifier'], early['notification_id'])
        for variant, received in (('no_start', False), ('no_wrapper', False), ('restart', True),
                                  ('key_overflow', False)):
            reply = await self.command('notifbridge_malformed_frame', phone='anna', variant=variant, timeout=0.3)
            self.assertEqual(reply['received'], received, variant)
        self.assertEqual(self.receiver.key_overflows, 1)
        under = await self.command('notifbridge_malformed_frame', phone='anna', variant='key_overflow', size=8000)
        self.assertTrue(under['received'], 'the same padded prepare under the cap is taken')
        for variant, received in (('envelope', False), ('key', False), ('event', True), ('event_version', True)):
            reply = await self.command('notifbridge_malformed_json', phone='anna', variant=variant, timeout=0.3)
            self.assertEqual(reply['received'], received, variant)
        await self.command('notifbridge_malformed_json', ok=False, phone='anna', variant='nonsense')

    async def test_errors(self) -> None:
        await self.command('notifbridge_state', ok=False, phone='bob')
        await self.command('add_phone', name='bob')
        reply = await self.command('notifbridge_post', ok=False, phone='bob', app='com.google.Maps')
        self.assertIn('notifbridge_connect first', reply['error'])
        await self.command('notifbridge_connect', ok=False, phone='bob', address=RECEIVER, key_write='sideways')
        reply = await self.command('notifbridge_connect', ok=False, phone='bob', address='C2:00:00:00:00:99',
                                   timeout=0.3)
        self.assertIn('connection to C2:00:00:00:00:99 failed', reply['error'])
        await self.command('notifbridge_post', ok=False, phone='anna', title='no app')


class NotifBridgePairing(ControlTestCase):
    """Both ways a NotifBridge link pairs: a receiver that shows a passkey
    (the head unit's way: the phone's user types it after
    `passkey_requested`) and a receiver without a screen (Just Works)."""

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.receiver: FakeReceiver | None = None

    async def asyncTearDown(self) -> None:
        await self.protocol.handle_line(json.dumps({'cmd': 'notifbridge_disconnect', 'id': 1, 'phone': 'anna'}))
        if self.receiver is not None:
            await self.receiver.close()
        await super().asyncTearDown()

    async def connect(self, shows_passkey: bool) -> tuple[dict, object]:
        self.receiver = FakeReceiver(shows_passkey=shows_passkey, encrypted=True)
        await self.receiver.start(self.port)
        await self.command('add_phone', name='anna')
        mark = self.sim.event_mark()
        connecting = asyncio.get_running_loop().create_task(
            self.protocol.handle_line(json.dumps({'cmd': 'notifbridge_connect', 'id': 8, 'phone': 'anna',
                                                  'address': RECEIVER, 'pair': True})))
        return {'mark': mark}, connecting

    async def test_passkey_shown_by_the_receiver_is_typed_on_the_phone(self) -> None:
        state, connecting = await self.connect(shows_passkey=True)
        await self.sim.wait_for('passkey_requested', after=state['mark'], timeout=5)
        for _ in range(50):
            if self.receiver.passkeys:
                break
            await asyncio.sleep(0.05)
        (passkey,) = self.receiver.passkeys
        await self.command('type_passkey', phone='anna', digits=passkey)
        await self.paired_and_keyed(state, connecting, ('passkey', True, True))

    async def test_receiver_without_a_screen_pairs_just_works(self) -> None:
        state, connecting = await self.connect(shows_passkey=False)
        await self.paired_and_keyed(state, connecting, ('just-works', False, True))
        self.assertIsNone(self.sim.find_event('passkey_requested', after=state['mark']))

    async def paired_and_keyed(self, state: dict, connecting, expected: tuple) -> None:
        """The connection succeeded, paired as `expected` (method, MITM, Secure
        Connections), and the characteristics that need encryption take the keys."""
        reply = await asyncio.wait_for(connecting, 10)
        self.assertTrue(reply['ok'], reply)
        (link,) = self.sim.phone('anna').device.connections.values()
        self.assertTrue(link.encryption)
        paired = await self.sim.wait_for('paired', after=state['mark'], timeout=5)
        self.assertEqual((paired['method'], paired['mitm'], paired['secure_connections']), expected)
        await self.command('notifbridge_keys', phone='anna', identifier='HEAD-UNIT-1')
        self.assertEqual(len(self.receiver.generations), 1)
