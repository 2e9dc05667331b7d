"""Pure pieces: the PAIRED CLIENT NAME rules, event masks, H4 framing, the ANCS
and AMS encodings and the simulated player."""

from __future__ import annotations

import unittest

import harness  # noqa: F401 - puts the package on sys.path

from phone.controller.event_masks import EventMasks
from phone.device import ancs_protocol as ancs
from phone.device.ams_source import encode_entity_update
from phone.device.encoding import fragments, truncate_utf8
from phone.device.media_player import MediaPlayer, Track
from phone.controller.h4_server import H4Framer, H4FramingError
from phone.device.navigation_service import PairedClientName


class PairedClientNameRules(unittest.TestCase):
    def test_rules(self) -> None:
        paired = PairedClientName()
        self.assertEqual(paired.write(b''), 0x0D)
        self.assertEqual(paired.write(b'x' * 33), 0x0D)
        self.assertIsNone(paired.write(b'x' * 32))
        self.assertEqual(paired.value, 'x' * 32)
        self.assertEqual(paired.write(b'HU-1'), 0x80)
        self.assertEqual(paired.value, 'x' * 32)
        self.assertIsNone(paired.write(b'x' * 32))
        self.assertIsNone(paired.write(b'UNPAIRED'))
        self.assertIsNone(paired.write(b'HU-1'))
        self.assertEqual(paired.write(b'\xff\xfe'), 0x81)
        paired.unpair()
        self.assertTrue(paired.is_unpaired)

    def test_multibyte_names_count_bytes(self) -> None:
        paired = PairedClientName()
        self.assertEqual(paired.write('é'.encode() * 17), 0x0D)  # 34 bytes
        self.assertIsNone(paired.write('é'.encode() * 16))  # 32 bytes


class EventMaskTests(unittest.TestCase):
    def test_defaults(self) -> None:
        masks = EventMasks()
        self.assertTrue(masks.event_enabled(0x05))  # Disconnection Complete
        self.assertFalse(masks.event_enabled(0x3E))  # LE Meta is off by default
        self.assertFalse(masks.event_enabled(0x59))  # page 2 is empty
        self.assertTrue(masks.event_enabled(0x0E))  # Command Complete is never masked
        self.assertTrue(masks.event_enabled(0x13))  # Number Of Completed Packets neither
        masks.event_mask |= 1 << 61
        self.assertTrue(masks.le_subevent_enabled(0x02))
        self.assertFalse(masks.le_subevent_enabled(0x0A))

    def test_le_meta_packets(self) -> None:
        masks = EventMasks()
        masks.event_mask = 1 << 61
        masks.le_event_mask = 1 << 1
        self.assertTrue(masks.allows(bytes([0x04, 0x3E, 2, 0x02, 0])))
        self.assertFalse(masks.allows(bytes([0x04, 0x3E, 2, 0x01, 0])))
        self.assertFalse(masks.allows(bytes([0x04, 0x05, 4, 0, 0, 0, 0])))


class FramingTests(unittest.TestCase):
    def test_split_and_joined_packets(self) -> None:
        framer = H4Framer()
        command = bytes([0x01, 0x03, 0x0C, 0x00])
        acl = bytes([0x02, 0x01, 0x00, 0x03, 0x00, 1, 2, 3])
        stream = command + acl
        packets = []
        for byte in stream:
            packets += framer.feed(bytes([byte]))
        self.assertEqual(packets, [command, acl])
        self.assertEqual(framer.feed(stream + stream[:2]), [command, acl])

    def test_garbage(self) -> None:
        with self.assertRaises(H4FramingError):
            H4Framer().feed(b'\x07\x00')


class AncsEncodingTests(unittest.TestCase):
    def test_truncation_keeps_whole_characters(self) -> None:
        self.assertEqual(truncate_utf8('abc', 10), b'abc')
        self.assertEqual(truncate_utf8('abc', 2), b'ab')
        self.assertEqual(truncate_utf8('aé', 2), b'a')  # é is 2 bytes
        self.assertEqual(truncate_utf8('aé', 3), 'aé'.encode())
        self.assertEqual(truncate_utf8('€€', 5), '€'.encode())  # € is 3 bytes
        self.assertEqual(truncate_utf8('🚗x', 3), b'')  # 4-byte emoji
        self.assertEqual(truncate_utf8('abc', 0), b'')
        for limit in range(12):
            truncate_utf8('a€é🚗b', limit).decode('utf-8')

    def test_fragments(self) -> None:
        self.assertEqual(fragments(b'abcdefg', 3), [b'abc', b'def', b'g'])
        self.assertEqual(fragments(b'abcdef', 3), [b'abc', b'def'])
        self.assertEqual(fragments(b'', 20), [b''])

    def test_control_point_decoding(self) -> None:
        command = ancs.parse_control_point(bytes.fromhex('00 01000000 00 01 4000 03 0001 05'))
        self.assertEqual((command.command_id, command.uid), (0, 1))
        self.assertEqual(command.attributes, [(0, None), (1, 64), (3, 256), (5, None)])
        self.assertEqual(command.event_fields()['attributes'], ['app_identifier', 'title', 'message', 'date'])
        command = ancs.parse_control_point(b'\x01com.apple.Maps\x00\x00')
        self.assertEqual((command.app, command.attributes), (b'com.apple.Maps', [(0, None)]))
        command = ancs.parse_control_point(bytes.fromhex('02 ffffffff 01'))
        self.assertEqual((command.uid, command.action_id), (0xFFFFFFFF, 1))
        for data, code in [
            (b'', 0xA1), (b'\x03', 0xA0), (b'\xff\x00', 0xA0), (bytes.fromhex('00 010000'), 0xA1),
            (bytes.fromhex('00 01000000 01 40'), 0xA1), (bytes.fromhex('00 01000000 08'), 0xA1),
            (b'\x01com', 0xA1), (b'\x01com\x00\x01', 0xA1), (bytes.fromhex('02 01000000'), 0xA1),
            (bytes.fromhex('02 01000000 02'), 0xA1), (bytes.fromhex('02 01000000 00 00'), 0xA1),
        ]:
            with self.subTest(data=data.hex()):
                with self.assertRaises(ancs.AncsError) as raised:
                    ancs.parse_control_point(data)
                self.assertEqual(raised.exception.code, code)

    def test_notification_source_and_attributes(self) -> None:
        # An important incoming call added, the only one of its category, UID 4.
        self.assertEqual(ancs.encode_notification_source(0, 0x02, 1, 1, 0x0000_0004).hex(), '0002010104000000')
        self.assertEqual(ancs.encode_attribute(1, b'Hi'), b'\x01\x02\x00Hi')
        note = ancs.Notification(1, 'com.x', 4, title='Ünï', message='ab€', positive_action='OK')
        self.assertEqual(note.attribute_value(1, 3), 'Ün'.encode())
        self.assertEqual(note.attribute_value(4, None), b'5')
        self.assertEqual(note.flags(pre_existing=True), 0x04 | 0x08)

    def test_categories(self) -> None:
        self.assertEqual(ancs.category_id('location'), 10)
        self.assertEqual(ancs.category_id('Location'), 10)
        self.assertEqual(ancs.category_id('IncomingCall'), 1)
        self.assertEqual(ancs.category_id('health_and_fitness'), 8)
        self.assertEqual(ancs.category_id(11), 11)
        self.assertEqual(ancs.category_id('4'), 4)
        with self.assertRaises(ValueError):
            ancs.category_id('gossip')
        self.assertEqual(ancs.check_date('20250102T030405'), '20250102T030405')
        with self.assertRaises(ValueError):
            ancs.check_date('2025-01-02')


class MediaPlayerTests(unittest.TestCase):
    def setUp(self) -> None:
        self.now = 100.0
        self.player = MediaPlayer(clock=lambda: self.now)

    def test_no_player_means_empty_values(self) -> None:
        values = self.player.values()
        self.assertEqual(values[(0, 0)], '')
        self.assertEqual(values[(0, 2)], '0.5')  # the system volume is always there
        self.assertEqual(self.player.supported_commands(), [])

    def test_playback_info_and_extrapolation(self) -> None:
        self.player.play_track(Track('T', 'A', 'B', 200.04), player='Spotify', elapsed=12.345)
        self.assertEqual(self.player.values()[(0, 1)], '1,1.0,12.345')
        self.assertEqual(self.player.values()[(2, 3)], '200.040')
        self.now += 10
        self.assertAlmostEqual(self.player.elapsed(), 22.345)
        self.assertEqual(self.player.values()[(0, 1)], '1,1.0,12.345')  # no update while it just plays
        self.player.set_playback('paused')
        self.assertEqual(self.player.values()[(0, 1)], '0,0.0,22.345')
        self.now += 10
        self.assertAlmostEqual(self.player.elapsed(), 22.345)
        self.player.apply(9)  # skip forward 15 s
        self.assertAlmostEqual(self.player.elapsed(), 37.345)
        self.player.set_playback('playing', elapsed=199.0)
        self.now += 5
        self.assertAlmostEqual(self.player.elapsed(), 200.04)  # not past the end

    def test_volume_and_modes(self) -> None:
        self.player.play_track(Track('T'), player='Music')
        self.player.apply(6)
        self.assertEqual(self.player.values()[(0, 2)], '0.4375')
        for _ in range(20):
            self.player.apply(5)
        self.assertEqual(self.player.values()[(0, 2)], '1.0')
        self.player.apply(7)
        self.player.apply(8)
        self.player.apply(8)
        self.assertEqual((self.player.values()[(1, 3)], self.player.values()[(1, 2)]), ('1', '2'))
        self.player.apply(11)
        self.assertEqual(self.player.marks, [('like_track', 'T')])

    def test_entity_update_truncation(self) -> None:
        self.assertEqual(encode_entity_update(2, 2, 'Title', 17), (b'\x02\x02\x00Title', False))
        data, truncated = encode_entity_update(2, 2, 'é' * 10, 17)
        self.assertTrue(truncated)
        self.assertEqual(data, b'\x02\x02\x01' + 'é'.encode() * 8)


if __name__ == '__main__':
    unittest.main()
