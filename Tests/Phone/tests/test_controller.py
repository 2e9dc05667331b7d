"""The head unit's controller as a raw HCI host sees it."""

from __future__ import annotations

import asyncio
import struct
import unittest

from harness import EVENT_COMMAND_COMPLETE, EVENT_COMMAND_STATUS, RawHci, RawHostTestCase, le_meta

from bumble import hci

SERVICE_UUID_LE = bytes.fromhex('AB312B45A8A14BCE97E77D3D97FB541E')[::-1]


def advertising_reports(events: list[bytes], after: int = 0) -> list[tuple[int, bytes, bytes]]:
    """(event type, address bytes, data) of every legacy report."""
    reports = []
    for event in events[after:]:
        if le_meta(event) == 0x02:
            count = event[4]
            offset = 5
            for _ in range(count):
                event_type = event[offset]
                address = event[offset + 2 : offset + 8]
                length = event[offset + 8]
                data = event[offset + 9 : offset + 9 + length]
                reports.append((event_type, address, data))
                offset += 9 + length + 1
    return reports


class ControllerTests(RawHostTestCase):
    async def test_unknown_commands_are_answered(self) -> None:
        # A vendor opcode nobody knows: Command Complete, Unknown HCI Command.
        event = await self.hci.command(0xFC55, b'\x01\x02')
        self.assertEqual(event[1], EVENT_COMMAND_COMPLETE)
        self.assertEqual(event[6], 0x01)
        # An asynchronous command this LE-only controller lacks: Command Status.
        event = await self.hci.command(0x0405, bytes(13))  # HCI_Create_Connection (BR/EDR)
        self.assertEqual(event[1], EVENT_COMMAND_STATUS)
        self.assertEqual(event[3], 0x01)
        # Extended advertising is not claimed, so its commands are unknown too.
        event = await self.hci.command(0x2043, bytes(10))  # LE Extended Create Connection
        self.assertEqual(event[1], EVENT_COMMAND_STATUS)
        self.assertEqual(event[3], 0x01)

    async def test_malformed_command_gets_invalid_parameters(self) -> None:
        event = await self.hci.command(0x200C, b'\x01')  # LE Set Scan Enable, one byte short
        self.assertEqual(event[1], EVENT_COMMAND_COMPLETE)
        self.assertEqual(event[6], 0x12)

    async def test_features_and_supported_commands(self) -> None:
        features = int.from_bytes(await self.hci.ok(0x2003), 'little')
        self.assertFalse(features & hci.LeFeatureMask.LE_EXTENDED_ADVERTISING)
        self.assertTrue(features & hci.LeFeatureMask.LE_ENCRYPTION)
        commands = await self.hci.ok(0x1002)
        bitmap = int.from_bytes(commands, 'little')
        self.assertTrue(bitmap & hci.HCI_SUPPORTED_COMMANDS_MASKS[hci.HCI_LE_ENCRYPT_COMMAND])
        self.assertFalse(bitmap & hci.HCI_SUPPORTED_COMMANDS_MASKS[hci.HCI_LE_SET_EXTENDED_SCAN_ENABLE_COMMAND])
        size, count = struct.unpack('<HB', await self.hci.ok(0x2002))
        self.assertEqual((size, count), (27, 8))

    async def test_active_scan_reports_scan_response_data(self) -> None:
        mark = len(self.hci.events)
        await self.hci.start_scan(active=True)
        await asyncio.sleep(0.5)
        reports = advertising_reports(self.hci.events, mark)
        address = bytes(self.anna.device.random_address)
        adv = [r for r in reports if r[0] == 0x00 and r[1] == address]
        scan_rsp = [r for r in reports if r[0] == 0x04 and r[1] == address]
        self.assertTrue(adv and scan_rsp)
        self.assertIn(SERVICE_UUID_LE, adv[0][2])
        self.assertIn(b'\x0e\x09iPhone (Anna)', scan_rsp[0][2])
        self.assertNotIn(SERVICE_UUID_LE, scan_rsp[0][2])
        # Never an extended report to a legacy-scanning host.
        self.assertFalse([e for e in self.hci.events[mark:] if le_meta(e) == 0x0D])

    async def test_passive_scan_gets_no_scan_response(self) -> None:
        mark = len(self.hci.events)
        await self.hci.start_scan(active=False)
        await asyncio.sleep(0.5)
        reports = advertising_reports(self.hci.events, mark)
        self.assertTrue([r for r in reports if r[0] == 0x00])
        self.assertFalse([r for r in reports if r[0] == 0x04])

    async def test_duplicate_filtering(self) -> None:
        mark = len(self.hci.events)
        await self.hci.start_scan(active=True, filter_duplicates=True)
        await asyncio.sleep(0.6)
        reports = advertising_reports(self.hci.events, mark)
        self.assertEqual(len([r for r in reports if r[0] == 0x00]), 1)

    async def test_le_event_mask_filters_reports(self) -> None:
        await self.hci.ok(0x2001, (0x1F & ~0x02).to_bytes(8, 'little'))  # no advertising reports
        mark = len(self.hci.events)
        await self.hci.start_scan()
        await asyncio.sleep(0.4)
        self.assertFalse(advertising_reports(self.hci.events, mark))
        await self.hci.ok(0x2001, (0x1F).to_bytes(8, 'little'))
        await asyncio.sleep(0.4)
        self.assertTrue(advertising_reports(self.hci.events, mark))

    async def test_reset_stops_scanning_and_restores_masks(self) -> None:
        await self.hci.ok(0x2001, (0x1F & ~0x02).to_bytes(8, 'little'))
        await self.hci.start_scan()
        await self.hci.ok(0x0C03)
        mark = len(self.hci.events)
        await asyncio.sleep(0.4)
        self.assertFalse(advertising_reports(self.hci.events, mark), 'scanning survived the reset')
        # The default event mask has no LE Meta Event: still nothing.
        await self.hci.start_scan()
        await asyncio.sleep(0.3)
        self.assertFalse(advertising_reports(self.hci.events, mark))
        # With LE Meta enabled, the default LE mask includes advertising reports.
        await self.hci.ok(0x0C01, (0x00001FFFFFFFFFFF | 1 << 61).to_bytes(8, 'little'))
        await asyncio.sleep(0.4)
        self.assertTrue(advertising_reports(self.hci.events, mark))

    async def test_reset_drops_connections(self) -> None:
        mark = self.sim.event_mark()
        await self.hci.connect_le(self.anna.device.random_address)
        await self.sim.wait_for('connected', phone='anna', after=mark)
        await self.hci.ok(0x0C03)
        event = await self.sim.wait_for('disconnected', phone='anna', after=mark)
        self.assertEqual(event['reason'], 0x08)  # the phone times out

    async def test_create_connection_cancel_completes(self) -> None:
        await self.hci.ok(0x2005, bytes(hci.Address('C0:11:22:33:44:55')))
        parameters = struct.pack('<HHBB', 0x10, 0x10, 0, 1) + bytes(hci.Address('71:22:33:44:55:66'))
        parameters += struct.pack('<BHHHHHH', 1, 24, 24, 0, 100, 0, 0)
        status = await self.hci.command(0x200D, parameters)
        self.assertEqual(status[3], 0x00)
        mark = len(self.hci.events)
        await self.hci.ok(0x200E)
        event = await self.hci.wait_event(lambda e: le_meta(e) in (0x01, 0x0A), mark)
        self.assertEqual(event[4], 0x02)  # Unknown Connection Identifier
        # Nothing left to cancel.
        event = await self.hci.command(0x200E)
        self.assertEqual(event[6], 0x0C)

    async def test_enhanced_connection_complete_when_enabled(self) -> None:
        await self.hci.ok(0x2001, (0x1F | 1 << 9).to_bytes(8, 'little'))
        mark = len(self.hci.events)
        await self.hci.connect_le(self.anna.device.random_address)
        self.assertFalse([e for e in self.hci.events[mark:] if le_meta(e) == 0x01])
        self.assertTrue([e for e in self.hci.events[mark:] if le_meta(e) == 0x0A])

    async def test_le_encrypt_specification_vector(self) -> None:
        # Core spec Vol 6, Part C, 1.1 (encryption sample data), values MSO first.
        key = bytes.fromhex('4C68384139F574D836BCF34E9DFB01BF')
        plaintext = bytes.fromhex('0213243546576879ACBDCEDFE0F10213')
        expected = bytes.fromhex('99AD1B5226A37E3E058E3B8E27C2C666')
        result = await self.hci.ok(0x2017, key[::-1] + plaintext[::-1])
        self.assertEqual(result[::-1], expected)

    async def test_le_rand(self) -> None:
        first = await self.hci.ok(0x2018)
        second = await self.hci.ok(0x2018)
        self.assertEqual(len(first), 8)
        self.assertNotEqual(first, second)

    async def test_p256_and_dhkey(self) -> None:
        await self.hci.ok(0x2001, (0x1F | 1 << 7 | 1 << 8).to_bytes(8, 'little'))
        mark = len(self.hci.events)
        status = await self.hci.command(0x2025)
        self.assertEqual(status[3], 0)
        key_event = await self.hci.wait_event(lambda e: le_meta(e) == 0x08, mark)
        self.assertEqual(key_event[4], 0)
        public_key = key_event[5:69]
        mark = len(self.hci.events)
        await self.hci.command(0x2026, public_key)  # DH with our own key: valid point
        dhkey_event = await self.hci.wait_event(lambda e: le_meta(e) == 0x09, mark)
        self.assertEqual(dhkey_event[4], 0)
        mark = len(self.hci.events)
        await self.hci.command(0x2026, bytes(64))  # not on the curve
        dhkey_event = await self.hci.wait_event(lambda e: le_meta(e) == 0x09, mark)
        self.assertEqual(dhkey_event[4], 0x12)

    async def test_link_procedures(self) -> None:
        handle = await self.hci.connect_le(self.anna.device.random_address)
        # Remote version: Apple, Bluetooth 5.3.
        mark = len(self.hci.events)
        status = await self.hci.command(0x041D, struct.pack('<H', handle))
        self.assertEqual(status[3], 0)
        event = await self.hci.wait_event(lambda e: e[1] == 0x0C, mark)
        _status, _handle, version, manufacturer, _sub = struct.unpack_from('<BHBHH', event, 3)
        self.assertEqual((version, manufacturer), (0x0C, 0x004C))
        # Remote features: the phone's LE feature set.
        mark = len(self.hci.events)
        await self.hci.command(0x2016, struct.pack('<H', handle))
        event = await self.hci.wait_event(lambda e: le_meta(e) == 0x04, mark)
        self.assertEqual(event[4], 0)
        self.assertTrue(int.from_bytes(event[7:15], 'little') & hci.LeFeatureMask.LE_2M_PHY)
        # PHY update to 2M.
        mark = len(self.hci.events)
        await self.hci.ok(0x2001, (0x1F | 1 << 6 | 1 << 11).to_bytes(8, 'little'))
        await self.hci.command(0x2032, struct.pack('<HBBBH', handle, 0, 0x02, 0x02, 0))
        event = await self.hci.wait_event(lambda e: le_meta(e) == 0x0C, mark)
        self.assertEqual(event[4:9], bytes([0]) + struct.pack('<H', handle) + bytes([2, 2]))
        phy = await self.hci.ok(0x2030, struct.pack('<H', handle))
        self.assertEqual(phy[2:4], bytes([2, 2]))
        # Data length.
        mark = len(self.hci.events)
        await self.hci.ok(0x2022, struct.pack('<HHH', handle, 251, 2120))
        event = await self.hci.wait_event(lambda e: le_meta(e) == 0x07, mark)
        _h, tx_octets, _tx_time, rx_octets, _rx_time = struct.unpack_from('<HHHHH', event, 4)
        self.assertEqual((tx_octets, rx_octets), (251, 251))
        # Unknown handle.
        event = await self.hci.command(0x041D, struct.pack('<H', 0x0EEE))
        self.assertEqual(event[3], 0x02)

    async def test_disconnect_reasons(self) -> None:
        mark = self.sim.event_mark()
        handle = await self.hci.connect_le(self.anna.device.random_address)
        await self.sim.wait_for('connected', phone='anna', after=mark)
        hci_mark = len(self.hci.events)
        status = await self.hci.command(0x0406, struct.pack('<HB', handle, 0x13))
        self.assertEqual(status[3], 0)
        event = await self.hci.wait_event(lambda e: e[1] == 0x05, hci_mark)
        self.assertEqual(event[6], 0x16)  # terminated by local host
        phone_event = await self.sim.wait_for('disconnected', phone='anna', after=mark)
        self.assertEqual(phone_event['reason'], 0x13)
        # Unknown handle and invalid reason.
        self.assertEqual((await self.hci.command(0x0406, struct.pack('<HB', handle, 0x13)))[3], 0x02)

    async def test_acl_flow_control(self) -> None:
        handle = await self.hci.connect_le(self.anna.device.random_address)
        hci_mark = len(self.hci.events)
        # ATT Exchange MTU Request in one L2CAP PDU: 4 + 3 bytes.
        self.hci.send_acl(handle, struct.pack('<HH', 3, 4) + bytes([0x02]) + struct.pack('<H', 185))
        event = await self.hci.wait_event(lambda e: e[1] == 0x13, hci_mark)
        self.assertEqual(struct.unpack_from('<BHH', event, 3), (1, handle, 1))
        self.assertFalse(self.hci_violations())
        # Longer than the 27-byte buffer: a violation, dropped.
        self.hci.send_acl(handle, bytes(30))
        await asyncio.sleep(0.1)
        self.assertTrue(self.hci_violations())
        # A first fragment too short for an L2CAP header: reported, the link survives.
        count = len(self.hci_violations())
        self.hci.send_acl(handle, b'\x01')
        await asyncio.sleep(0.1)
        self.assertGreater(len(self.hci_violations()), count)
        await self.hci.ok(0x2018)

    async def test_acl_to_host_is_fragmented(self) -> None:
        mark = self.sim.event_mark()
        handle = await self.hci.connect_le(self.anna.device.random_address)
        await self.sim.wait_for('connected', phone='anna', after=mark)
        # Answer the phone's MTU request, exchange ours, then ask for all attribute
        # types: the Find Information response is longer than 27 bytes.
        await asyncio.sleep(0.1)
        acl_mark = len(self.hci.acl)
        self.hci.send_acl(handle, struct.pack('<HH', 3, 4) + bytes([0x03]) + struct.pack('<H', 517))
        await asyncio.sleep(0.1)
        self.hci.send_acl(handle, struct.pack('<HH', 7, 4) + bytes([0x02]) + struct.pack('<H', 517))
        await asyncio.sleep(0.1)
        request = bytes([0x04]) + struct.pack('<HH', 1, 0xFFFF)
        self.hci.send_acl(handle, struct.pack('<HH', len(request), 4) + request)
        await asyncio.sleep(0.3)
        packets = self.hci.acl[acl_mark:]
        self.assertTrue(packets)
        lengths = [struct.unpack_from('<H', p, 3)[0] for p in packets]
        self.assertTrue(all(length <= 27 for length in lengths), lengths)
        flags = [(struct.unpack_from('<H', p, 1)[0] >> 12) & 3 for p in packets]
        self.assertIn(0b01, flags, 'no continuation fragment seen')

    async def test_tcp_reconnect_is_a_power_cycle(self) -> None:
        mark = self.sim.event_mark()
        await self.hci.connect_le(self.anna.device.random_address)
        await self.sim.wait_for('connected', phone='anna', after=mark)
        await self.hci.close()
        await self.sim.wait_for('disconnected', phone='anna', after=mark)
        second = RawHci()
        await second.connect(self.port)
        try:
            await second.init()
            scan_mark = len(second.events)
            await second.start_scan()
            await asyncio.sleep(0.4)
            self.assertTrue(advertising_reports(second.events, scan_mark))
        finally:
            await second.close()

    async def test_second_host_is_refused(self) -> None:
        other = RawHci()
        await other.connect(self.port)
        await self.sim.wait_for('hci_client', state='refused')
        await other.close()
        # The first host still works.
        await self.hci.ok(0x2018)


if __name__ == '__main__':
    unittest.main()
