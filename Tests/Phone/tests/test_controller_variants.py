"""The head unit's controller in the variants real chips differ in."""

from __future__ import annotations

import asyncio
import struct
import unittest

from harness import EVENT_COMMAND_COMPLETE, RawHostTestCase

from bumble import hci

from phone.controller import ControllerVariant
from test_controller import advertising_reports

UNKNOWN_HCI_COMMAND = 0x01
MEMORY_CAPACITY_EXCEEDED = 0x07
COMMAND_DISALLOWED = 0x0C
INVALID_HCI_COMMAND_PARAMETERS = 0x12

READ_ENCRYPTION_KEY_SIZE = 0x1408
LE_READ_LOCAL_FEATURES = 0x2003
READ_LOCAL_SUPPORTED_COMMANDS = 0x1002
LE_READ_FILTER_ACCEPT_LIST_SIZE = 0x200F
LE_ADD_DEVICE_TO_FILTER_ACCEPT_LIST = 0x2011
LE_ADD_DEVICE_TO_RESOLVING_LIST = 0x2027
LE_CLEAR_RESOLVING_LIST = 0x2029
LE_READ_RESOLVING_LIST_SIZE = 0x202A
LE_SET_ADDRESS_RESOLUTION_ENABLE = 0x202D
LE_SET_ADVERTISING_ENABLE = 0x200A


def listed(bitmap: bytes, opcode: int) -> bool:
    return bool(int.from_bytes(bitmap, 'little') & hci.HCI_SUPPORTED_COMMANDS_MASKS[opcode])


def random_address(text: str) -> bytes:
    return bytes([1]) + bytes(hci.Address(text))


class DefaultControllerTests(RawHostTestCase):
    async def test_default_has_the_key_size_command_and_no_ll_privacy(self) -> None:
        bitmap = await self.hci.ok(READ_LOCAL_SUPPORTED_COMMANDS)
        self.assertTrue(listed(bitmap, READ_ENCRYPTION_KEY_SIZE))
        self.assertFalse(listed(bitmap, LE_READ_RESOLVING_LIST_SIZE))
        features = int.from_bytes(await self.hci.ok(LE_READ_LOCAL_FEATURES), 'little')
        self.assertFalse(features & hci.LeFeatureMask.LL_PRIVACY)
        event = await self.hci.command(LE_READ_RESOLVING_LIST_SIZE)
        self.assertEqual((event[1], event[6]), (EVENT_COMMAND_COMPLETE, UNKNOWN_HCI_COMMAND))
        self.assertEqual(await self.hci.ok(LE_READ_FILTER_ACCEPT_LIST_SIZE), bytes([8]))


class NoKeySizeCommandTests(RawHostTestCase):
    controller_variant = ControllerVariant(key_size_command=False)

    async def test_the_command_is_unlisted_and_answered_unknown(self) -> None:
        self.assertFalse(listed(await self.hci.ok(READ_LOCAL_SUPPORTED_COMMANDS), READ_ENCRYPTION_KEY_SIZE))
        event = await self.hci.command(READ_ENCRYPTION_KEY_SIZE, struct.pack('<H', 0x0001))
        self.assertEqual((event[1], event[6]), (EVENT_COMMAND_COMPLETE, UNKNOWN_HCI_COMMAND))


class SmallListsTests(RawHostTestCase):
    controller_variant = ControllerVariant(ll_privacy=True, accept_list_size=1, resolving_list_size=1)

    async def test_sizes_are_read_and_honoured(self) -> None:
        self.assertEqual(await self.hci.ok(LE_READ_FILTER_ACCEPT_LIST_SIZE), bytes([1]))
        self.assertEqual(await self.hci.ok(LE_READ_RESOLVING_LIST_SIZE), bytes([1]))
        await self.hci.ok(LE_ADD_DEVICE_TO_FILTER_ACCEPT_LIST, random_address('F0:01:02:03:04:05'))
        event = await self.hci.command(LE_ADD_DEVICE_TO_FILTER_ACCEPT_LIST, random_address('F0:0A:0B:0C:0D:0E'))
        self.assertEqual(event[6], MEMORY_CAPACITY_EXCEEDED)
        entry = random_address('F0:01:02:03:04:05') + bytes(range(16)) + bytes(16)
        await self.hci.ok(LE_ADD_DEVICE_TO_RESOLVING_LIST, entry)
        again = await self.hci.command(LE_ADD_DEVICE_TO_RESOLVING_LIST, entry)
        self.assertEqual(again[6], INVALID_HCI_COMMAND_PARAMETERS)
        other = random_address('F0:0A:0B:0C:0D:0E') + bytes(range(16, 32)) + bytes(16)
        full = await self.hci.command(LE_ADD_DEVICE_TO_RESOLVING_LIST, other)
        self.assertEqual(full[6], MEMORY_CAPACITY_EXCEEDED)
        await self.hci.ok(LE_CLEAR_RESOLVING_LIST)
        await self.hci.ok(LE_ADD_DEVICE_TO_RESOLVING_LIST, other)


class LLPrivacyTests(RawHostTestCase):
    controller_variant = ControllerVariant(ll_privacy=True)

    async def test_listed_and_claimed(self) -> None:
        bitmap = await self.hci.ok(READ_LOCAL_SUPPORTED_COMMANDS)
        for opcode in (LE_ADD_DEVICE_TO_RESOLVING_LIST, LE_CLEAR_RESOLVING_LIST, LE_READ_RESOLVING_LIST_SIZE,
                       LE_SET_ADDRESS_RESOLUTION_ENABLE):
            self.assertTrue(listed(bitmap, opcode), hex(opcode))
        features = int.from_bytes(await self.hci.ok(LE_READ_LOCAL_FEATURES), 'little')
        self.assertTrue(features & hci.LeFeatureMask.LL_PRIVACY)

    async def test_reports_of_a_listed_phone_carry_its_identity(self) -> None:
        identity = hci.Address(self.anna.identity.identity_address, hci.Address.PUBLIC_DEVICE_ADDRESS)
        entry = bytes([0]) + bytes(identity) + bytes(self.anna.identity.irk) + bytes(16)
        await self.hci.ok(LE_ADD_DEVICE_TO_RESOLVING_LIST, entry)
        await self.hci.ok(LE_SET_ADDRESS_RESOLUTION_ENABLE, b'\x01')
        mark = len(self.hci.events)
        await self.hci.start_scan(active=False)
        await asyncio.sleep(0.5)
        # Address type 2 (public identity) and the identity address, not the RPA.
        typed = [e for e in self.hci.events[mark:] if len(e) > 7 and e[3] == 0x02 and e[6] == 0x02]
        self.assertTrue(typed)
        reports = advertising_reports(self.hci.events, mark)
        self.assertIn(bytes(identity), [address for _, address, _ in reports])
        self.assertNotIn(bytes(self.anna.device.random_address), [address for _, address, _ in reports])
        # The list cannot change while resolution is on and the controller scans.
        event = await self.hci.command(LE_CLEAR_RESOLVING_LIST)
        self.assertEqual(event[6], COMMAND_DISALLOWED)
        await self.hci.stop_scan()
        await self.hci.ok(LE_SET_ADDRESS_RESOLUTION_ENABLE, b'\x00')
        await self.hci.ok(LE_CLEAR_RESOLVING_LIST)


if __name__ == '__main__':
    unittest.main()
