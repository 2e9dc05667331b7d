"""The head unit's controller with extended scanning and initiating, and with the
rule that legacy and extended advertising/scanning/initiating commands are never
mixed (Core spec Vol 4, Part E, 3.1.1)."""

from __future__ import annotations

import asyncio
import struct
import unittest

from harness import EVENT_COMMAND_COMPLETE, EVENT_COMMAND_STATUS, RawHostTestCase, le_meta

from bumble import hci

from phone.controller import ControllerVariant
from test_controller import advertising_reports
from test_controller_variants import listed

COMMAND_DISALLOWED = 0x0C
UNSUPPORTED_FEATURE = 0x11

LE_SET_EVENT_MASK = 0x2001
LE_SET_ADVERTISING_PARAMETERS = 0x2006
LE_SET_SCAN_PARAMETERS = 0x200B
LE_READ_NUMBER_OF_SUPPORTED_ADVERTISING_SETS = 0x203B
LE_SET_EXTENDED_SCAN_PARAMETERS = 0x2041
LE_SET_EXTENDED_SCAN_ENABLE = 0x2042
LE_EXTENDED_CREATE_CONNECTION = 0x2043
# Connection Complete, Advertising Report, Enhanced Connection Complete, Extended Advertising Report.
LE_MASK = 1 << 0 | 1 << 1 | 1 << 9 | 1 << 12


def extended_scan_parameters(active: bool = True, phys: int = 1) -> bytes:
    return bytes([0, 0, phys, int(active)]) + struct.pack('<HH', 0x10, 0x10)


def extended_reports(events: list[bytes], after: int = 0) -> list[tuple[int, bytes, bytes]]:
    """(event type, address bytes, data) of every LE Extended Advertising Report."""
    reports = []
    for event in events[after:]:
        if le_meta(event) != 0x0D:
            continue
        offset = 5
        for _ in range(event[4]):
            event_type = struct.unpack_from('<H', event, offset)[0]
            address = event[offset + 3 : offset + 9]
            length = event[offset + 23]
            reports.append((event_type, address, event[offset + 24 : offset + 24 + length]))
            offset += 24 + length
    return reports


class ExtendedScanningTests(RawHostTestCase):
    controller_variant = ControllerVariant(extended_scanning=True, no_mixing=True)

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        await self.hci.ok(LE_SET_EVENT_MASK, LE_MASK.to_bytes(8, 'little'))

    async def test_claims_the_commands_and_the_feature(self) -> None:
        bitmap = await self.hci.ok(0x1002)
        for opcode in (LE_SET_EXTENDED_SCAN_PARAMETERS, LE_SET_EXTENDED_SCAN_ENABLE, LE_EXTENDED_CREATE_CONNECTION):
            self.assertTrue(listed(bitmap, opcode))
        features = int.from_bytes(await self.hci.ok(0x2003), 'little')
        self.assertTrue(features & hci.LeFeatureMask.LE_EXTENDED_ADVERTISING)

    async def test_an_extended_scan_reports_legacy_pdus_in_extended_reports(self) -> None:
        mark = len(self.hci.events)
        await self.hci.ok(LE_SET_EXTENDED_SCAN_PARAMETERS, extended_scan_parameters())
        await self.hci.ok(LE_SET_EXTENDED_SCAN_ENABLE, bytes([1, 0, 0, 0, 0, 0]))
        await asyncio.sleep(0.5)
        reports = extended_reports(self.hci.events, mark)
        anna = bytes(self.anna.device.random_address)
        kinds = {event_type for event_type, address, _ in reports if address == anna}
        # ADV_IND and its scan response, as legacy PDUs (7.7.65.13).
        self.assertEqual(kinds, {0x13, 0x1B}, reports)
        self.assertFalse(advertising_reports(self.hci.events, mark), 'legacy reports for an extended scan')
        # Parameters cannot change while scanning; only LE 1M is there.
        event = await self.hci.command(LE_SET_EXTENDED_SCAN_PARAMETERS, extended_scan_parameters())
        self.assertEqual(event[6], COMMAND_DISALLOWED)
        await self.hci.ok(LE_SET_EXTENDED_SCAN_ENABLE, bytes(6))
        event = await self.hci.command(LE_SET_EXTENDED_SCAN_PARAMETERS, extended_scan_parameters(phys=0x04))
        self.assertEqual(event[6], UNSUPPORTED_FEATURE)

    async def test_legacy_commands_are_refused_after_an_extended_one_until_reset(self) -> None:
        await self.hci.ok(LE_SET_EXTENDED_SCAN_PARAMETERS, extended_scan_parameters())
        event = await self.hci.command(LE_SET_SCAN_PARAMETERS, struct.pack('<BHHBB', 1, 0x10, 0x10, 0, 0))
        self.assertEqual((event[1], event[6]), (EVENT_COMMAND_COMPLETE, COMMAND_DISALLOWED))
        event = await self.hci.command(0x200D, bytes(25))  # LE Create Connection: Command Status
        self.assertEqual((event[1], event[3]), (EVENT_COMMAND_STATUS, COMMAND_DISALLOWED))
        await self.hci.init()  # HCI_Reset clears the choice
        await self.hci.start_scan()
        event = await self.hci.command(LE_SET_EXTENDED_SCAN_ENABLE, bytes(6))
        self.assertEqual(event[6], COMMAND_DISALLOWED)

    async def test_extended_create_connection_on_le_1m(self) -> None:
        mark = len(self.hci.events)
        parameters = bytes([0, 0, 1]) + bytes(self.anna.device.random_address) + bytes([1])
        parameters += struct.pack('<HHHHHHHH', 0x10, 0x10, 24, 24, 0, 100, 0, 0)
        status = await self.hci.command(LE_EXTENDED_CREATE_CONNECTION, parameters)
        self.assertEqual((status[1], status[3]), (EVENT_COMMAND_STATUS, 0))
        event = await self.hci.wait_event(lambda e: le_meta(e) == 0x0A, mark, 5.0)
        self.assertEqual(event[4], 0, event.hex())
        self.assertEqual(event[7], 0)  # we are central
        coded = bytes([0, 0, 1]) + bytes(self.anna.device.random_address) + bytes([4])
        coded += struct.pack('<HHHHHHHH', 0x10, 0x10, 24, 24, 0, 100, 0, 0)
        event = await self.hci.command(LE_EXTENDED_CREATE_CONNECTION, coded)
        self.assertEqual(event[3], UNSUPPORTED_FEATURE)


class NoMixingWithSetsOnlyTests(RawHostTestCase):
    """Reading the number of advertising sets is itself an extended command."""

    controller_variant = ControllerVariant(no_mixing=True)
    advertising_sets = 2

    async def test_the_set_count_commits_the_controller_to_extended(self) -> None:
        await self.hci.ok(LE_READ_NUMBER_OF_SUPPORTED_ADVERTISING_SETS)
        parameters = struct.pack('<HHBBB6sBB', 0x20, 0x20, 0, 0, 0, bytes(6), 7, 0)
        event = await self.hci.command(LE_SET_ADVERTISING_PARAMETERS, parameters)
        self.assertEqual(event[6], COMMAND_DISALLOWED)
        # LE Set Random Address belongs to neither group.
        await self.hci.ok(0x2005, bytes(hci.Address('C0:11:22:33:44:55')))


if __name__ == '__main__':
    unittest.main()
