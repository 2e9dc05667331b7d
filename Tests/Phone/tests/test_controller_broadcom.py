"""The head unit's controller as a Raspberry Pi's onboard Broadcom chip:
the bring-up the kernel's hci_bcm/btbcm sends (drivers/bluetooth/btbcm.c),
answered as the real chip does."""

from __future__ import annotations

import glob
import os
import struct
import unittest

from harness import EVENT_COMMAND_COMPLETE, RawHostTestCase

from phone.controller import ControllerVariant, broadcom

UNKNOWN_HCI_COMMAND = 0x01
COMMAND_DISALLOWED = 0x0C
RESET = 0x0C03
READ_LOCAL_NAME = 0x0C14
READ_LOCAL_VERSION = 0x1001
READ_LOCAL_EXTENDED_FEATURES = 0x1004
READ_BD_ADDR = 0x1009

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def patch_records(data: bytes):
    """The HCI commands of an .hcd file, as btbcm_patchram walks it."""
    pos = 0
    while pos + 3 <= len(data):
        opcode, length = struct.unpack_from('<HB', data, pos)
        yield opcode, data[pos + 3:pos + 3 + length]
        pos += 3 + length


def a_patch_file() -> bytes:
    """The real BCM43430A1.hcd when image/build has unpacked bluez-firmware,
    else a made-up one of the same form (Write RAM records, Launch RAM)."""
    for path in glob.glob(os.path.join(TOP, '.build-image', 'pkg', 'bluez-firmware', 'lib', 'firmware', 'brcm',
                                       'BCM43430A1.hcd')):
        with open(path, 'rb') as f:
            return f.read()
    records = b''
    for address in range(0x00210000, 0x00210000 + 40 * 200, 200):
        body = struct.pack('<I', address) + bytes(range(200))
        records += struct.pack('<HB', broadcom.WRITE_RAM, len(body)) + body
    return records + struct.pack('<HB', broadcom.LAUNCH_RAM, 4) + struct.pack('<I', 0xFFFFFFFF)


class BroadcomBringUpTests(RawHostTestCase):
    controller_variant = ControllerVariant(broadcom='BCM43430A1')

    async def test_btbcm_initialize_patchram_and_finalize(self) -> None:
        # btbcm_initialize: reset, the version (its subversion names the patch
        # file), verbose config and features (lengths checked by btbcm), name.
        await self.hci.ok(RESET)
        version = await self.hci.ok(READ_LOCAL_VERSION)
        _, revision, _, manufacturer, subversion = struct.unpack('<BHBHH', version)
        self.assertEqual((manufacturer, subversion), (15, 0x2209))
        verbose = await self.hci.command(broadcom.READ_VERBOSE_CONFIG)
        self.assertEqual(verbose[1], EVENT_COMMAND_COMPLETE)
        self.assertEqual(len(verbose) - 6, 7, 'btbcm wants 7 bytes of Read Verbose Config')
        features = await self.hci.command(broadcom.READ_CONTROLLER_FEATURES)
        self.assertEqual(len(features) - 6, 9, 'btbcm wants 9 bytes of Read Controller Features')
        name = await self.hci.command(READ_LOCAL_NAME)
        self.assertEqual(len(name) - 6, 249)
        # The kernel's own initialisation reads page 1 of the extended features.
        extended = await self.hci.ok(READ_LOCAL_EXTENDED_FEATURES, bytes([1]))
        self.assertEqual(extended[0], 1)
        # hci_bcm raises the UART to the device tree's max-speed (2 Mbaud on the Pi).
        await self.hci.ok(broadcom.UPDATE_UART_BAUD_RATE, struct.pack('<HI', 0, 2000000))
        # Write RAM before Download Minidriver is refused, as on the chip.
        early = await self.hci.command(broadcom.WRITE_RAM, struct.pack('<I', 0x00210000) + bytes(8))
        self.assertEqual(early[6], COMMAND_DISALLOWED)
        # btbcm_patchram: the minidriver, then every record of the file.
        await self.hci.ok(broadcom.DOWNLOAD_MINIDRIVER)
        launched = 0
        for opcode, body in patch_records(a_patch_file()):
            await self.hci.ok(opcode, body)
            launched += opcode == broadcom.LAUNCH_RAM
        self.assertEqual(launched, 1)
        reported = [e for e in self.sim.events if e.get('event') == 'patch_ram_launched']
        self.assertEqual([(e['chip'], e['baud_rate']) for e in reported], [('BCM43430A1', 2000000)])
        chip = self.sim.controller.broadcom
        self.assertEqual((chip.launched, chip.baud_rate, chip.minidriver), (1, 2000000, False))
        self.assertGreater(chip.patch_records, 10)
        # btbcm_finalize: initialised again; the patched chip reports another build.
        await self.hci.ok(RESET)
        again = struct.unpack('<BHBHH', await self.hci.ok(READ_LOCAL_VERSION))
        self.assertEqual(again[4], 0x2209)
        self.assertNotEqual(again[1], revision)
        self.assertEqual(len(await self.hci.ok(READ_BD_ADDR)), 6)


class PlainControllerTests(RawHostTestCase):
    async def test_vendor_commands_are_unknown_without_broadcom(self) -> None:
        event = await self.hci.command(broadcom.READ_VERBOSE_CONFIG)
        self.assertEqual((event[1], event[6]), (EVENT_COMMAND_COMPLETE, UNKNOWN_HCI_COMMAND))


if __name__ == '__main__':
    unittest.main()
