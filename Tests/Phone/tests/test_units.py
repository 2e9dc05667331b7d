"""Pure pieces: the PAIRED CLIENT NAME rules, event masks, H4 framing."""

from __future__ import annotations

import unittest

import harness  # noqa: F401 - puts the package on sys.path

from phone.controller.event_masks import EventMasks
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


if __name__ == '__main__':
    unittest.main()
