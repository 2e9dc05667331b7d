"""The simulated iPhone's NotifBridge sender (phone/notifbridge/sender.py)
against a fake receiver (notifbridge_fake.py) over the simulated radio: the
phone is the central, the receiver sits on the head unit's controller."""

from __future__ import annotations

import asyncio
import base64
import json
import unittest
import uuid

from harness import SimulatorTestCase
from notifbridge_fake import ADDRESS, FakeReceiver

from phone.notifbridge import framing, messages, swift_json
from phone.notifbridge.sender import DeliveryFailed, NotifBridgeSender, connect_central

RECEIVER = ADDRESS.to_string(with_type_qualifier=False)


class SenderTestCase(SimulatorTestCase):
    mtu: int | None = 185
    key_write = 'without_response'
    receiver_offers_without_response = True
    receiver_ready = True
    receiver_encrypted = False

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna', accessory_mtu=self.mtu)
        self.receiver = FakeReceiver(ready=self.receiver_ready, encrypted=self.receiver_encrypted,
                                     key_write_without_response=self.receiver_offers_without_response)
        await self.receiver.start(self.port)
        self.sender = NotifBridgeSender(self.record, connector=self.connect, key_write=self.key_write,
                                        chunk_timeout=2.0, receipt_timeout=2.0, ready_timeout=2.0)
        self.emitted: list[dict] = []

    async def asyncTearDown(self) -> None:
        await self.sender.disconnect()
        await self.receiver.close()
        await super().asyncTearDown()

    def record(self, event: str, **fields) -> None:
        self.emitted.append({'event': event, **fields})

    async def connect(self):
        return await connect_central(self.anna.device, RECEIVER, mtu=self.mtu)

    async def attach(self) -> None:
        await self.sender.attach(await self.connect())

    async def assert_keys_work(self, generation) -> None:
        """Both ends hold the same exporter secret, and an envelope gets through."""
        self.assertEqual(self.receiver.generations[0][1], generation.exporter_secret)
        self.assertTrue((await self.sender.post('com.google.Maps', 'In 500 m', 'Turn left'))['received'])


class KeyExchangeWithoutResponse(SenderTestCase):
    async def test_subscribes_first_then_waits_for_readiness_then_keys(self) -> None:
        await self.attach()
        self.assertEqual(self.receiver.subscriptions, 1)
        self.assertEqual(self.sender.counts['readiness'], 1)
        generation = await self.sender.exchange_keys()
        self.assertEqual(self.receiver.timeline[0], 'subscribed')
        self.assertEqual(len(self.receiver.key_frames), 2)
        self.assertEqual(self.receiver.refused, [])
        # Two frames of values of MTU - 3 between START and END.
        values = self.receiver.key_values
        self.assertEqual([i for i, v in enumerate(values) if v == framing.START], [0, values.index(framing.END) + 1])
        for frame in (values[:values.index(framing.END)], values[values.index(framing.END) + 1:-1]):
            self.assertEqual(frame[0], framing.START)
            self.assertTrue(all(len(v) == 182 for v in frame[1:-1]), [len(v) for v in frame])
            self.assertLessEqual(len(frame[-1]), 182)
        self.assertEqual(self.receiver.prepare_writes, 0)
        # Both ends derive the same exporter secret.
        self.assertEqual(self.receiver.generations[0][1], generation.exporter_secret)
        self.assertEqual(len(self.sender.receipts), 2)

    async def test_prepare_and_activate_json_bytes(self) -> None:
        await self.attach()
        generation = await self.sender.exchange_keys(identifier='ACCESSORY-1')
        prepare, activate = self.receiver.key_frames
        pattern = (rb'\{"phase":"prepare","exchangeID":"([0-9A-F-]{36})","receiptID":"([0-9A-F-]{36})",'
                   rb'"publicKey":"([A-Za-z0-9+=]|\\/)+","privateKeySeed":"([A-Za-z0-9+=]|\\/)+"\}')
        self.assertRegex(prepare, pattern)
        self.assertNotIn(b' ', prepare)
        # `/` in base64 is always escaped.
        self.assertNotRegex(prepare, rb'[^\\]/')
        packet = json.loads(prepare)
        self.assertEqual(base64.b64decode(packet['publicKey']), generation.public_key)
        self.assertEqual(len(base64.b64decode(packet['privateKeySeed'])), 32)
        self.assertEqual(packet['exchangeID'], str(generation.exchange_id).upper())
        self.assertEqual(list(json.loads(activate)), ['phase', 'exchangeID', 'receiptID', 'encapsulatedKey',
                                                       'identifier', 'ciphersuite', 'version'])
        packet = json.loads(activate)
        self.assertEqual((packet['ciphersuite'], packet['version'], packet['identifier']),
                         ('XWing', 'Version1', 'ACCESSORY-1'))
        self.assertEqual(len(base64.b64decode(packet['encapsulatedKey'])), 1120)


class ReadinessLate(SenderTestCase):
    receiver_ready = False

    async def test_nothing_is_written_until_readiness(self) -> None:
        keys = asyncio.ensure_future(self.attach_and_exchange())
        for _ in range(100):
            if self.receiver.subscriptions:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
        self.assertEqual(self.receiver.timeline, ['subscribed'])
        self.assertFalse(keys.done())
        self.receiver.send_frame(framing.READY)
        await keys
        self.assertEqual(self.sender.counts['readiness'], 1)
        self.assertEqual(self.receiver.timeline[1], 'key')

    async def attach_and_exchange(self) -> None:
        await self.attach()
        await self.sender.exchange_keys()


class EncryptionRequired(SenderTestCase):
    receiver_encrypted = True

    async def test_pairs_when_the_subscription_is_refused_then_goes_on(self) -> None:
        await self.attach()
        self.assertIn({'event': 'notifbridge_link', 'state': 'securing', 'att_error': 0x0F}, self.emitted)
        self.assertTrue(self.sender.connection.encryption)
        await self.assert_keys_work(await self.sender.exchange_keys())


class LegacyKeyPacket(SenderTestCase):
    key_write = 'request'

    async def test_single_shot_packet(self) -> None:
        await self.attach()
        generation = await self.sender.exchange_keys(identifier='OLD-APP', legacy=True)
        (frame,) = self.receiver.key_frames
        self.assertEqual(list(json.loads(frame)), ['identifier', 'ciphersuite', 'version', 'encapsulatedKey',
                                                    'publicKey', 'privateKeySeed', 'receiptID'])
        await self.assert_keys_work(generation)


class KeyExchangeWithRequests(SenderTestCase):
    key_write = 'request'

    async def test_write_requests_when_asked(self) -> None:
        await self.attach()
        await self.assert_keys_work(await self.sender.exchange_keys())


class KeyExchangeFallsBackToRequests(SenderTestCase):
    receiver_offers_without_response = False

    async def test_requests_when_the_characteristic_has_no_write_without_response(self) -> None:
        await self.attach()
        await self.assert_keys_work(await self.sender.exchange_keys())


class Envelopes(SenderTestCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        await self.attach()
        self.generation = await self.sender.exchange_keys()

    async def test_chunks_are_220_bytes_each_acked(self) -> None:
        body = 'Turn left onto Market Street / then right ' * 20
        result = await self.sender.post('com.google.Maps', 'In 500 m', body)
        self.assertTrue(result['received'])
        self.assertGreater(self.receiver.prepare_writes, 0, 'at MTU 185 a 220-byte value is a long write')
        values = self.receiver.wrapped_values
        inner = [framing.unwrap(v)[1] for v in values]
        self.assertEqual(inner[0], framing.START)
        self.assertEqual(inner[-1], framing.END)
        self.assertEqual(len(values[0]), 20 + 9)
        self.assertEqual(len(values[-1]), 20 + 7)
        self.assertGreater(len(values), 6)
        self.assertTrue(all(len(v) == 220 for v in values[1:-2]), [len(v) for v in values])
        self.assertLessEqual(len(values[-2]), 220)
        self.assertEqual(len({framing.unwrap(v)[0] for v in values}), len(values), 'chunk ids are fresh')
        self.assertEqual(self.sender.counts['acks'], len(values))
        event = self.receiver.events[-1]
        self.assertEqual(event['notification']['body'], body)
        self.assertEqual(event['notification']['sourceIdentifier'], 'com.google.Maps')
        self.assertEqual(event['kind'], 'add')

    async def test_without_relayed_receipts_frames_go_plain(self) -> None:
        self.sender.relay_receipts = False
        body = 'Turn left onto Market Street / then right ' * 20
        acks = self.sender.counts['acks']
        result = await self.sender.post('com.google.Maps', 'In 500 m', body)
        self.assertTrue(result['received'], 'the receipt still comes on …8C4B')
        plain = [v for v in self.receiver.wrapped_values if framing.unwrap(v) is None]
        self.assertEqual(plain[0], framing.START)
        self.assertEqual(plain[-1], framing.END)
        self.assertTrue(all(len(v) == 182 for v in plain[1:-2]), 'a burst of MTU − 3 bytes without response')
        self.assertEqual(self.sender.counts['acks'], acks, 'no ack waited for')
        self.assertEqual(self.receiver.events[-1]['notification']['body'], body)

    async def test_envelope_and_event_json_bytes(self) -> None:
        result = await self.sender.post('com.apple.Music', 'Song', 'Artist / Album', source_name='Music')
        envelope = self.receiver.envelope_frames[-1]
        self.assertRegex(envelope, rb'^\{"sessionID":"[0-9A-F-]{36}","data":"([A-Za-z0-9+=]|\\/)+",'
                                   rb'"receiptID":"[0-9A-F-]{36}"\}$')
        self.assertEqual(json.loads(envelope)['receiptID'], result['receipt'])
        plaintext = self.receiver.plaintexts[-1]
        self.assertIn(b'"body":"Artist \\/ Album"', plaintext)
        self.assertRegex(plaintext, rb'^\{"version":3,"id":"[0-9A-F-]{36}","kind":"add","notification":\{')
        self.assertRegex(plaintext, rb'"sentAt":\d+\.\d+\}$')
        self.assertNotIn(b'"identity"', plaintext)
        self.assertNotIn(b'null', plaintext)

    async def test_a_notification_is_every_member_of_the_apps_in_order(self) -> None:
        await self.sender.post('com.google.Maps', '200 m', 'Turn left', source_name='Google Maps', attributes=2,
                               actions=[messages.action('end', 'End route', messages.background()),
                                        messages.action('reply', 'Reply', messages.text_input('Message')),
                                        messages.action('close', 'Close', messages.dismiss()),
                                        messages.action('later', 'Later', messages.unknown_action(255))])
        plaintext = self.receiver.plaintexts[-1]
        self.assertRegex(plaintext, rb'"notification":\{"title":"200 m","subtitle":"","body":"Turn left",'
                                    rb'"sourceName":"Google Maps","sourceIdentifier":"com.google.Maps",'
                                    rb'"notificationIdentifier":"[0-9A-F-]{36}","threadIdentifier":"","hasSound":false,'
                                    rb'"attributes":2,"actions":\[\{"id":"end","title":"End route","type":\{"background":\{\}\}\},'
                                    rb'\{"id":"reply","title":"Reply","type":\{"textInput":\{"placeholder":"Message"\}\}\},'
                                    rb'\{"id":"close","title":"Close","type":\{"dismiss":\{\}\}\},'
                                    rb'\{"id":"later","title":"Later","type":\{"unknown":\{"_0":255\}\}\}\],'
                                    rb'"sourceIcon":"","contextIcon":"","attachments":\[\],"receivedAt":[0-9.]+,'
                                    rb'"deliveryDate":[0-9.]+,"displayDate":[0-9.]+,"displayDateIsAllDay":false,"summary":"",'
                                    rb'"shouldAlert":true,"isSuppressedByFocus":false,"ignoreSilentMode":false,'
                                    rb'"alertKind":"notification","isCleared":false\},"sentAt":')

    async def test_update_remove_remove_all(self) -> None:
        posted = await self.sender.post('com.google.Maps', 'In 500 m', 'Turn left')
        updated = await self.sender.post('com.google.Maps', 'In 200 m', 'Turn left',
                                         notification_id=posted['notification_id'])
        self.assertEqual(updated['kind'], 'update')
        removed = await self.sender.remove('com.google.Maps')
        self.assertEqual(removed['notification_id'], posted['notification_id'])
        await self.sender.remove_all()
        kinds = [e['kind'] for e in self.receiver.events]
        self.assertEqual(kinds, ['add', 'update', 'remove', 'removeAll'])
        self.assertEqual(self.receiver.events[2]['identity'],
                         {'sourceIdentifier': 'com.google.Maps', 'notificationIdentifier': posted['notification_id']})
        self.assertNotIn('notification', self.receiver.events[3])

    async def test_displayed_comes_back_decrypted(self) -> None:
        posted = await self.sender.post('com.google.Maps', 'In 500 m', 'Turn left')
        for _ in range(50):
            if self.sender.displayed():
                break
            await asyncio.sleep(0.02)
        displayed = self.sender.displayed()
        self.assertEqual(len(displayed), 1)
        self.assertEqual(displayed[0]['replyTo'], posted['event_id'])
        self.assertEqual(displayed[0]['identity']['notificationIdentifier'], posted['notification_id'])
        self.assertTrue(displayed[0]['didAlert'])

    async def test_clear_is_answered_with_a_command_result(self) -> None:
        posted = await self.sender.post('com.google.Maps', 'In 500 m', 'Turn left')
        session = uuid.UUID(json.loads(self.receiver.envelope_frames[-1])['sessionID'])
        self.receiver.send_command('clear', {'sourceIdentifier': 'com.google.Maps',
                                             'notificationIdentifier': posted['notification_id']},
                                   posted['event_id'], session)
        for _ in range(100):
            if self.receiver.events[-1]['kind'] == 'commandResult':
                break
            await asyncio.sleep(0.02)
        result = self.receiver.events[-1]
        self.assertEqual(result['kind'], 'commandResult')
        self.assertEqual(result['result']['kind'], 'clear')
        self.assertEqual(result['result']['commandID'], self.sender.commands[-1]['command']['id'])
        self.assertEqual(self.sender.notifications, {})

    async def test_rotation_uses_the_new_generation(self) -> None:
        first = self.generation
        second = await self.sender.exchange_keys()
        self.assertNotEqual(first.exchange_id, second.exchange_id)
        self.assertNotEqual(first.session, second.session)
        await self.sender.post('com.google.Maps', 'In 100 m', 'Arrive')
        envelope = json.loads(self.receiver.envelope_frames[-1])
        self.assertEqual(envelope['sessionID'], str(second.session).upper())
        self.assertEqual([g.exchange_id for g in self.sender.generations], [second.exchange_id, first.exchange_id])


class LowMtu(SenderTestCase):
    mtu = None  # 23: every 220-byte value goes as Prepare Write + Execute Write

    async def test_prepared_writes_below_223(self) -> None:
        await self.attach()
        self.assertEqual(self.sender.mtu, 23)
        await self.sender.exchange_keys()
        self.assertEqual(self.receiver.prepare_writes, 0, 'key values are MTU - 3: no long writes')
        self.assertTrue(all(len(v) <= 20 for v in self.receiver.key_values))
        result = await self.sender.post('com.google.Maps', 'In 500 m', 'x' * 300)
        self.assertTrue(result['received'])
        self.assertGreater(self.receiver.prepare_writes, 0)
        self.assertIn(220, [len(v) for v in self.receiver.wrapped_values])


class MtuFrom223(SenderTestCase):
    mtu = 247  # a 220-byte value fits one write request from MTU 223 on

    async def test_no_prepared_writes(self) -> None:
        await self.attach()
        await self.sender.exchange_keys()
        self.assertTrue(all(len(v) <= 244 for v in self.receiver.key_values))
        self.assertIn(244, [len(v) for v in self.receiver.key_values])
        self.assertTrue((await self.sender.post('com.google.Maps', 'In 500 m', 'x' * 300))['received'])
        self.assertIn(220, [len(v) for v in self.receiver.wrapped_values])
        self.assertEqual(self.receiver.prepare_writes, 0)


class StallsAndRetries(SenderTestCase):
    """The 16 s of silence and the 20 s receipt wait, shortened; the keys are
    exchanged first with the longer waits (decapsulation in pure Python
    holds the receiver's loop)."""

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        await self.attach()
        await self.sender.exchange_keys()
        self.sender.chunk_timeout = self.sender.receipt_timeout = 0.3

    async def test_silence_disconnects_and_resends_from_start(self) -> None:
        first = len(self.receiver.wrapped_values)
        self.receiver.silent_chunks = {first + 1}  # the first payload chunk is never acked
        result = await self.sender.post('com.google.Maps', 'In 500 m', 'Turn left')
        self.assertTrue(result['received'])
        self.assertEqual(self.sender.counts['stalls'], 1)
        self.assertEqual(self.sender.counts['reconnections'], 1)
        inner = [framing.unwrap(v)[1] for v in self.receiver.wrapped_values[first:]]
        self.assertEqual(inner[0], framing.START)
        self.assertEqual(inner[2], framing.START, 'the frame is sent again from START on the new link')
        self.assertIn({'event': 'notifbridge_frame', 'state': 'stalled', 'channel': '8C47', 'resend': True},
                      self.emitted)

    async def test_gives_up_after_two_resends(self) -> None:
        first = len(self.receiver.wrapped_values)
        self.receiver.silent_chunks = set(range(first, first + 100))
        with self.assertRaises(DeliveryFailed):
            await self.sender.post('com.google.Maps', 'In 500 m', 'Turn left')
        self.assertEqual(self.sender.counts['stalls'], 3)

    async def test_receipt_timeout_sends_again(self) -> None:
        self.receiver.drop_receipts = 2
        result = await self.sender.post('com.google.Maps', 'In 500 m', 'Turn left')
        self.assertTrue(result['received'])
        self.assertEqual(self.sender.counts['receipt_timeouts'], 2)
        self.assertEqual(len(self.receiver.envelope_frames), 3)
        self.assertEqual(len({f for f in self.receiver.envelope_frames}), 1, 'the same envelope each time')

    async def test_no_receipt_after_three_retries(self) -> None:
        self.receiver.drop_receipts = 10
        result = await self.sender.post('com.google.Maps', 'In 500 m', 'Turn left')
        self.assertFalse(result['received'])
        self.assertEqual(len(self.receiver.envelope_frames), 4)

    async def test_readiness_mid_frame_restarts_it(self) -> None:
        first = len(self.receiver.wrapped_values)
        self.receiver.silent_chunks = {first + 1}
        task = asyncio.ensure_future(self.sender.post('com.google.Maps', 'In 500 m', 'Turn left'))
        for _ in range(100):
            if len(self.receiver.wrapped_values) > first + 1:
                break
            await asyncio.sleep(0.01)
        self.receiver.send_frame(framing.READY)
        result = await task
        self.assertTrue(result['received'])
        self.assertEqual(self.sender.counts['restarts'], 1)
        self.assertEqual(self.sender.counts['stalls'], 0)


class SwiftJSON(unittest.TestCase):
    def test_slash_escaped_and_compact_absent_optionals_left_out(self) -> None:
        self.assertEqual(swift_json.encode({'a': 'x/y', 'b': [1, True, 0.5], 'c': None}),
                         b'{"a":"x\\/y","b":[1,true,0.5]}')

    def test_strings(self) -> None:
        self.assertEqual(swift_json.encode('a"b\\c/d\ne\x01é'), '"a\\"b\\\\c\\/d\\ne\\u0001é"'.encode())

    def test_uuid_uppercase_bytes_base64_dates(self) -> None:
        value = uuid.UUID('6fa459ea-ee8a-3ca4-894e-db77e160355e')
        encoded = swift_json.encode({'id': value, 'data': bytes([0xFB, 0xFF]), 'at': swift_json.SwiftDate(785000000.25),
                                     'whole': swift_json.SwiftDate(785000000.0), 'none': None})
        self.assertEqual(encoded, b'{"id":"6FA459EA-EE8A-3CA4-894E-DB77E160355E","data":"+\\/8=",'
                                  b'"at":785000000.25,"whole":785000000}')

    def test_non_finite_refused(self) -> None:
        with self.assertRaises(ValueError):
            swift_json.encode(float('nan'))

    def test_dates_are_seconds_since_2001(self) -> None:
        self.assertAlmostEqual(swift_json.REFERENCE_DATE_UNIX, 978307200.0)
        now = swift_json.SwiftDate.now().since_reference
        self.assertTrue(7.0e8 < now < 2.0e9)


if __name__ == '__main__':
    unittest.main()
