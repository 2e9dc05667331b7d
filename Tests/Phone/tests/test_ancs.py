"""The phone as an ANCS Notification Provider, driven by a Bumble central that pairs,
subscribes and writes the Control Point the way a head unit does."""

from __future__ import annotations

import asyncio
import struct
import unittest

from harness import PairedPhoneTestCase, characteristic

from bumble.gatt import GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR

from phone.device.apple_services import (
    ANCS_CONTROL_POINT_UUID,
    ANCS_DATA_SOURCE_UUID,
    ANCS_NOTIFICATION_SOURCE_UUID,
)

PROBE_UID = 0xFFFFFFFF
PRE_EXISTING = 0x04

ALL_ATTRIBUTES = [(0, None), (1, 64), (2, 64), (3, 256), (4, None), (5, None), (6, None), (7, None)]


def get_notification_attributes(uid: int, attributes) -> bytes:
    request = struct.pack('<BI', 0, uid)
    for attribute, limit in attributes:
        request += bytes([attribute]) + (struct.pack('<H', limit) if limit is not None else b'')
    return request


def notification_source(value: bytes) -> dict:
    event_id, flags, category, count, uid = struct.unpack('<BBBBI', value)
    return {'event_id': event_id, 'flags': flags, 'category': category, 'count': count, 'uid': uid}


def parse_response(buffer: bytes, command_id: int, attribute_count: int):
    """A complete Data Source response, or None while bytes are missing: what a
    client reassembles, driven by the attribute list it asked for."""
    if not buffer or buffer[0] != command_id:
        raise AssertionError(f'response does not start with command {command_id}: {buffer.hex()}')
    if command_id == 0:
        if len(buffer) < 5:
            return None
        header, index = struct.unpack_from('<I', buffer, 1)[0], 5
    else:
        end = buffer.find(b'\x00', 1)
        if end < 0:
            return None
        header, index = buffer[1:end].decode(), end + 1
    attributes = []
    while len(attributes) < attribute_count:
        if index + 3 > len(buffer):
            return None
        attribute, length = struct.unpack_from('<BH', buffer, index)
        if index + 3 + length > len(buffer):
            return None
        attributes.append((attribute, buffer[index + 3:index + 3 + length]))
        index += 3 + length
    if index != len(buffer):
        raise AssertionError(f'{len(buffer) - index} bytes after the last attribute')
    return header, attributes


async def read_response(queue: asyncio.Queue, command_id: int, attribute_count: int):
    """Reassemble one response; returns (UID or app, [(attribute, value)], fragment sizes)."""
    buffer, sizes = b'', []
    while True:
        part = await asyncio.wait_for(queue.get(), 3)
        buffer += part
        sizes.append(len(part))
        parsed = parse_response(buffer, command_id, attribute_count)
        if parsed is not None:
            return parsed[0], parsed[1], sizes


class AncsSessionTests(PairedPhoneTestCase):
    async def start_session(self):
        """Pair, subscribe to the Data Source then the Notification Source."""
        connection, peer = await self.connect_encrypted()
        data_source = await self.subscribe(peer, ANCS_DATA_SOURCE_UUID)
        source = await self.subscribe(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        return connection, peer, source, data_source

    async def test_pre_existing_notifications_then_live_events(self) -> None:
        maps = await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m',
                                                 message='Turn left onto Market Street')
        mail = await self.anna.post_notification('com.apple.mobilemail', 'email', title='Bank', message='Statement',
                                                 negative_action='Trash')
        self.assertIsNone(maps['uid'])  # no session yet
        _connection, _peer, source, _data = await self.start_session()
        first = notification_source(await asyncio.wait_for(source.get(), 3))
        second = notification_source(await asyncio.wait_for(source.get(), 3))
        self.assertEqual((first['event_id'], first['category'], first['count']), (0, 10, 1))
        self.assertEqual(first['flags'], PRE_EXISTING)
        self.assertEqual((second['category'], second['flags']), (6, PRE_EXISTING | 0x10))  # + NegativeAction
        self.assertLess(first['uid'], second['uid'])
        self.assertEqual(self.anna.list_notifications()[0]['uid'], first['uid'])
        session = await self.sim.wait_for('ancs_session', phone='anna', state='started')
        self.assertEqual(session['notifications'], 2)

        chat = await self.anna.post_notification('com.facebook.Messenger', 'social', title='Alex', message='Hi',
                                                 important=True)
        added = notification_source(await asyncio.wait_for(source.get(), 3))
        self.assertEqual((added['event_id'], added['flags'], added['category'], added['count']), (0, 0x02, 4, 1))
        self.assertEqual(added['uid'], chat['uid'])
        self.assertGreater(added['uid'], second['uid'])

        await self.anna.modify_notification(maps['id'], title='In 200 m')
        modified = notification_source(await asyncio.wait_for(source.get(), 3))
        self.assertEqual((modified['event_id'], modified['uid']), (1, first['uid']))

        await self.anna.remove_notification(uid=first['uid'])
        removed = notification_source(await asyncio.wait_for(source.get(), 3))
        self.assertEqual((removed['event_id'], removed['category'], removed['count'], removed['uid']),
                         (2, 10, 0, first['uid']))
        self.assertEqual([n['id'] for n in self.anna.list_notifications()], [mail['id'], chat['id']])
        notified = [e for e in self.sim.events if e['event'] == 'ancs_notified']
        self.assertEqual([e['event_name'] for e in notified], ['added', 'added', 'added', 'modified', 'removed'])
        self.assertEqual(notified[0]['flags'], ['pre_existing'])

    async def test_attributes_app_name_and_privacy_events(self) -> None:
        _connection, peer, _source, data = await self.start_session()
        maps = await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m',
                                                 message='Turn left onto Market Street', date='20250102T030405')
        chat = await self.anna.post_notification('com.facebook.Messenger', 'social', title='Alex', message='secret')
        await self.sim.wait_for('ancs_notified', phone='anna', uid=chat['uid'])

        # The filter's first look: only the AppIdentifier.
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID,
                                           get_notification_attributes(chat['uid'], [(0, None)])))
        uid, attributes, _sizes = await read_response(data, 0, 1)
        self.assertEqual((uid, attributes), (chat['uid'], [(0, b'com.facebook.Messenger')]))

        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID,
                                           get_notification_attributes(maps['uid'], ALL_ATTRIBUTES)))
        uid, attributes, _sizes = await read_response(data, 0, len(ALL_ATTRIBUTES))
        self.assertEqual(uid, maps['uid'])
        self.assertEqual(dict(attributes), {
            0: b'com.google.Maps', 1: b'In 500 m', 2: b'', 3: b'Turn left onto Market Street',
            4: b'28', 5: b'20250102T030405', 6: b'', 7: b'',
        })

        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID, b'\x01com.google.Maps\x00\x00'))
        app, attributes, _sizes = await read_response(data, 1, 1)
        self.assertEqual((app, attributes), ('com.google.Maps', [(0, b'Google Maps')]))

        # What the phone logged lets a test check that the chat's text was never asked for.
        requests = [e for e in self.sim.events if e['event'] == 'ancs_request']
        chat_requests = [e for e in requests if e.get('id') == chat['id']]
        self.assertEqual([e['attributes'] for e in chat_requests], [['app_identifier']])
        self.assertEqual(chat_requests[0]['app'], 'com.facebook.Messenger')
        maps_request = next(e for e in requests if e.get('id') == maps['id'])
        self.assertEqual(maps_request['max_lengths'], {'title': 64, 'subtitle': 64, 'message': 256})
        self.assertEqual(requests[-1]['command'], 'get_app_attributes')
        self.assertEqual(requests[-1]['app'], 'com.google.Maps')

    async def test_error_codes_and_nothing_on_the_data_source(self) -> None:
        _connection, peer, source, data = await self.start_session()
        chat = await self.anna.post_notification('com.facebook.Messenger', 'social', title='Alex', message='Hi')
        await asyncio.wait_for(source.get(), 3)
        cases = [
            (b'\x07\x00\x00\x00\x00', 0xA0),  # unknown CommandID
            (b'', 0xA1),  # nothing at all
            (b'\x00\x01\x00', 0xA1),  # UID cut short
            (get_notification_attributes(chat['uid'], [(1, None)]), 0xA1),  # Title without max length
            (get_notification_attributes(chat['uid'], [(9, None)]), 0xA1),  # undefined attribute
            (get_notification_attributes(PROBE_UID, [(0, None)]), 0xA2),  # the liveness probe
            (struct.pack('<BI', 0, PROBE_UID), 0xA2),  # probe without attributes
            (b'\x01com.example.nothing\x00\x00', 0xA2),  # unknown app
            (b'\x01com.google.Maps', 0xA1),  # app identifier not NUL-terminated
            (struct.pack('<BIB', 2, chat['uid'], 0), 0xA3),  # no positive action offered
            (struct.pack('<BIB', 2, chat['uid'], 5), 0xA1),  # undefined ActionID
            (struct.pack('<BIB', 2, PROBE_UID, 1), 0xA2),
        ]
        for request, expected in cases:
            with self.subTest(request=request.hex()):
                self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, request), expected)
        self.assertEqual(await self.drain(data), [])
        errors = [e['att_error'] for e in self.sim.events if e['event'] == 'ancs_request']
        self.assertEqual(errors, [expected for _request, expected in cases])
        self.assertIsNone(self.sim.find_event('ancs_response_sent'))

    async def test_perform_notification_action(self) -> None:
        _connection, peer, source, _data = await self.start_session()
        call = await self.anna.post_notification('com.apple.mobilephone', 'incoming_call', title='Mum',
                                                 positive_action='Answer', negative_action='Decline')
        keep = await self.anna.post_notification('com.apple.mobilemail', 'email', title='Bank',
                                                 negative_action='Trash', on_action='keep')
        added = notification_source(await asyncio.wait_for(source.get(), 3))
        self.assertEqual(added['flags'], 0x18)  # PositiveAction | NegativeAction
        await asyncio.wait_for(source.get(), 3)
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID, struct.pack('<BIB', 2, call['uid'], 0)))
        removed = notification_source(await asyncio.wait_for(source.get(), 3))
        self.assertEqual((removed['event_id'], removed['uid']), (2, call['uid']))
        action = await self.sim.wait_for('ancs_action', phone='anna', id=call['id'])
        self.assertEqual((action['action'], action['label'], action['result']), ('positive', 'Answer', 'removed'))
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID, struct.pack('<BIB', 2, keep['uid'], 1)))
        self.assertEqual(await self.drain(source), [])
        self.assertEqual([n['id'] for n in self.anna.list_notifications()], [keep['id']])
        # The call is gone: acting on it again names nothing.
        self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, struct.pack('<BIB', 2, call['uid'], 1)), 0xA2)

    async def test_no_data_source_subscription_no_answer(self) -> None:
        _connection, peer = await self.connect_encrypted()
        source = await self.subscribe(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        maps = await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m')
        await asyncio.wait_for(source.get(), 3)
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID,
                                           get_notification_attributes(maps['uid'], [(0, None)])))
        dropped = await self.sim.wait_for('ancs_response_dropped', phone='anna')
        self.assertEqual((dropped['reason'], dropped['uid']), ('data source not subscribed', maps['uid']))
        request = self.sim.find_event('ancs_request', phone='anna')
        self.assertFalse(request['data_source_subscribed'])

    async def test_uids_are_valid_in_their_session_only(self) -> None:
        _connection, peer, source, data = await self.start_session()
        maps = await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m')
        old = notification_source(await asyncio.wait_for(source.get(), 3))['uid']
        notification_source_characteristic = characteristic(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        await notification_source_characteristic.unsubscribe()
        await self.sim.wait_for('ancs_session', phone='anna', state='ended', reason='unsubscribed')
        self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, get_notification_attributes(old, [(0, None)])),
                         0xA2)
        source = await self.subscribe(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        again = notification_source(await asyncio.wait_for(source.get(), 3))
        self.assertEqual(again['flags'], PRE_EXISTING)
        self.assertGreater(again['uid'], old)
        self.assertEqual(self.anna.list_notifications()[0]['uid'], again['uid'])
        self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, get_notification_attributes(old, [(0, None)])),
                         0xA2)
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID,
                                           get_notification_attributes(again['uid'], [(0, None)])))
        uid, attributes, _sizes = await read_response(data, 0, 1)
        self.assertEqual((uid, attributes[0][1]), (again['uid'], b'com.google.Maps'))
        self.assertEqual(maps['id'], self.anna.list_notifications()[0]['id'])

    async def test_share_system_notifications_off(self) -> None:
        await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m')
        await self.anna.set_sharing(False)
        _connection, peer, source, data = await self.start_session()  # the CCCD writes succeed
        await self.anna.post_notification('com.google.Maps', 'location', title='In 400 m')
        self.assertEqual(await self.drain(source), [])
        for request in (get_notification_attributes(PROBE_UID, [(0, None)]), b'\x01com.google.Maps\x00\x00', b''):
            self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, request), 0x03)  # Write Not Permitted
        self.assertEqual(await self.drain(data), [])
        refused = await self.sim.wait_for('ancs_session', phone='anna', state='refused')
        self.assertIn('share system notifications', refused['reason'])
        # The user switches it on: the session starts with what exists.
        await self.anna.set_sharing(True)
        replay = [notification_source(v) for v in [await asyncio.wait_for(source.get(), 3) for _ in range(2)]]
        self.assertEqual([n['flags'] for n in replay], [PRE_EXISTING, PRE_EXISTING])
        self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, get_notification_attributes(PROBE_UID, [])),
                         0xA2)
        self.assertTrue(self.anna.state()['sharing'])

    async def test_dropped_subscriptions_detected_by_the_probe_and_recovered(self) -> None:
        _connection, peer, source, data = await self.start_session()
        await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m')
        await asyncio.wait_for(source.get(), 3)
        self.assertEqual(self.anna.drop_subscriptions(), ['C0:98:76:54:32:10'])
        # Silent: no more Notification Source events, and the CCCD now reads 0.
        await self.anna.post_notification('com.google.Maps', 'location', title='In 300 m')
        self.assertEqual(await self.drain(source), [])
        cccd = characteristic(peer, ANCS_NOTIFICATION_SOURCE_UUID).get_descriptor(
            GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR
        )
        self.assertEqual(bytes(await cccd.read_value()), b'\x00\x00')
        # The liveness probe gets its Write Response, but never the 0xA2 it expects.
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID, get_notification_attributes(PROBE_UID, [(0, None)])))
        self.assertEqual(await self.drain(data), [])
        ignored = await self.sim.wait_for('ancs_request', phone='anna', result='ignored')
        self.assertEqual(ignored['uid'], PROBE_UID)
        # Re-subscribing recovers: a new session with everything as PreExisting.
        source = await self.subscribe(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        replay = [notification_source(v) for v in [await asyncio.wait_for(source.get(), 3) for _ in range(2)]]
        self.assertEqual([n['flags'] for n in replay], [PRE_EXISTING, PRE_EXISTING])
        recovered = await self.sim.wait_for('ancs_subscribed', phone='anna', characteristic='notification_source',
                                            recovered=True)
        self.assertTrue(recovered)
        self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, get_notification_attributes(PROBE_UID, [])),
                         0xA2)

    async def test_dropped_subscriptions_with_a_control_point_that_still_answers(self) -> None:
        _connection, peer, source, _data = await self.start_session()
        self.anna.drop_subscriptions(control_point='normal')
        self.assertEqual(await self.write(peer, ANCS_CONTROL_POINT_UUID, get_notification_attributes(PROBE_UID, [])),
                         0xA2)
        await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m')
        self.assertEqual(await self.drain(source), [])

    async def test_unanswered_control_point_holds_the_write_response(self) -> None:
        _connection, peer, _source, _data = await self.start_session()
        self.anna.drop_subscriptions(control_point='unanswered', delay=0.6)
        loop = asyncio.get_running_loop()
        started = loop.time()
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID, get_notification_attributes(PROBE_UID, [])))
        self.assertGreaterEqual(loop.time() - started, 0.5)
        await self.sim.wait_for('ancs_request', phone='anna', result='held')

    async def test_bonded_reconnection_resumes_the_session(self) -> None:
        connection, _peer, source, _data = await self.start_session()
        await self.anna.post_notification('com.google.Maps', 'location', title='In 500 m')
        await asyncio.wait_for(source.get(), 3)
        mark = self.sim.event_mark()
        await connection.disconnect()
        await self.sim.wait_for('ancs_session', phone='anna', state='ended', reason='disconnected', after=mark)
        _connection, _peer = await self.connect_encrypted(pair=False)
        # The subscription persisted with the bond: the session starts at encryption.
        resumed = await self.sim.wait_for('ancs_session', phone='anna', state='started', after=mark)
        self.assertEqual(resumed['reason'], 'resumed')
        notified = await self.sim.wait_for('ancs_notified', phone='anna', after=mark)
        self.assertEqual(notified['flags'], ['pre_existing'])
        self.assertTrue(notified['sent'])


class AncsFragmentTests(PairedPhoneTestCase):
    """Responses split at ATT_MTU - 3 (here MTU 23: 20-byte notifications)."""

    expected_mtu = 23

    async def test_long_response_is_fragmented_and_truncated_at_characters(self) -> None:
        connection, peer = await self.connect_encrypted()
        self.assertEqual(connection.att_mtu, self.expected_mtu)
        data = await self.subscribe(peer, ANCS_DATA_SOURCE_UUID)
        await self.subscribe(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        message = 'Grüße aus Köln – ' * 30  # multi-byte characters throughout
        title = 'é' * 40  # 80 bytes
        note = await self.anna.post_notification('com.apple.MobileSMS', 'social', title=title, subtitle='Family',
                                                 message=message, positive_action='Reply', negative_action='Clear')
        await self.sim.wait_for('ancs_notified', phone='anna', uid=note['uid'])
        request = get_notification_attributes(note['uid'], [(0, None), (1, 9), (2, 0), (3, 300), (4, None),
                                                             (5, None), (6, None), (7, None), (1, 200)])
        self.assertIsNone(await self.write(peer, ANCS_CONTROL_POINT_UUID, request))
        uid, attributes, sizes = await read_response(data, 0, 9)
        self.assertEqual(uid, note['uid'])
        values = [value for _attribute, value in attributes]
        self.assertEqual(values[1], 'éééé'.encode())  # 9 bytes allowed: 4 whole characters
        self.assertEqual(values[2], b'')
        self.assertLessEqual(len(values[3]), 300)
        self.assertGreater(len(values[3]), 296)
        self.assertTrue(message.encode().startswith(values[3]))
        values[3].decode('utf-8')  # never half a character
        self.assertEqual(values[4], str(len(message.encode())).encode())
        self.assertEqual((values[6], values[7]), (b'Reply', b'Clear'))
        self.assertEqual(values[8], title.encode())
        self.assertTrue(all(size <= self.expected_mtu - 3 for size in sizes))
        self.assertEqual(sizes[:-1], [self.expected_mtu - 3] * (len(sizes) - 1))
        sent = await self.sim.wait_for('ancs_response_sent', phone='anna', uid=note['uid'])
        self.assertEqual((sent['fragments'], sent['mtu']), (sizes, self.expected_mtu))


class AncsFragmentTests185(AncsFragmentTests):
    phone_mtu = 185
    expected_mtu = 185


if __name__ == '__main__':
    unittest.main()
