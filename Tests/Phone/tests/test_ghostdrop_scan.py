"""`ghostdrop_scan` (phone/ghostdrop_scan.py): GhostDrop's sender lists only
advertisers of GhostDrop's service UUID, with their name and the capabilities
of their service data, whichever PDU carries the UUID."""

from __future__ import annotations

import json
import uuid

from harness import ControlTestCase

from bumble import hci
from bumble.device import AdvertisingType, Device
from bumble.transport import open_transport

from bumble.core import AdvertisingData

from phone import ghostdrop_scan
from phone.ghostdrop import SERVICE_UUID

ADDRESS = hci.Address('C2:B5:00:00:00:77')
GHOST = uuid.UUID(SERVICE_UUID).bytes[::-1]
OTHER = uuid.UUID('D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44').bytes[::-1]
CAPABILITIES = {'capabilities': {'supportsL2CAP': True, 'maxChunk': 180, 'maxWindow': 32, 'protocolVersion': 1},
                'psm': 128}


def structure(kind: int, value: bytes) -> bytes:
    return bytes([len(value) + 1, kind]) + value


def name(text: str, shortened: bool = False) -> bytes:
    return structure(0x08 if shortened else 0x09, text.encode())


FLAGS = structure(0x01, b'\x06')


class GhostDropScan(ControlTestCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.transport = await open_transport(f'tcp-client:127.0.0.1:{self.port}')
        self.device = Device.with_hci('receiver', ADDRESS, self.transport.source, self.transport.sink)
        await self.device.power_on()
        await self.command('add_phone', name='anna', server_app=False)

    async def asyncTearDown(self) -> None:
        await self.transport.close()
        await super().asyncTearDown()

    async def advertise(self, data: bytes, response: bytes) -> None:
        if self.device.is_advertising:
            await self.device.stop_advertising()
        await self.device.start_advertising(advertising_type=AdvertisingType.UNDIRECTED_CONNECTABLE_SCANNABLE,
                                            own_address_type=hci.OwnAddressType.RANDOM, auto_restart=False,
                                            advertising_interval_min=20, advertising_interval_max=20,
                                            advertising_data=data, scan_response_data=response)

    async def test_the_uuid_in_the_advertising_data_is_listed_by_name(self) -> None:
        await self.advertise(FLAGS + structure(0x07, GHOST), name('Car NotifBdg'))
        reply = await self.command('ghostdrop_scan', phone='anna', seconds=5, name='Car NotifBdg')
        (receiver,) = reply['receivers']
        self.assertEqual(receiver['address'], str(ADDRESS))
        self.assertEqual((receiver['name'], receiver['shortened'], receiver['names']), ('Car NotifBdg', False, ['Car NotifBdg']))
        self.assertTrue(receiver['in_advertising_data'])
        self.assertIsNone(receiver['capabilities'], 'no service data: the sender takes its defaults (GATT)')
        self.assertGreaterEqual(receiver['reports'], 1)
        self.assertLess(receiver['first_heard_s'], 5)

    async def test_an_advertiser_without_the_uuid_is_not_listed(self) -> None:
        await self.advertise(FLAGS + structure(0x07, OTHER), name('Car NotifBdg'))
        reply = await self.command('ghostdrop_scan', phone='anna', seconds=1.5)
        self.assertEqual(reply['receivers'], [])

    async def test_the_uuid_in_the_scan_response_only_and_capabilities_in_service_data(self) -> None:
        service_data = structure(0x21, GHOST + b'{}')  # too small for the JSON: a marker only
        await self.advertise(FLAGS + name('Car', shortened=True) + service_data, structure(0x07, GHOST))
        reply = await self.command('ghostdrop_scan', phone='anna', seconds=5, name='Car Stereo')
        (receiver,) = reply['receivers']
        self.assertEqual((receiver['name'], receiver['shortened']), ('Car', True))
        self.assertFalse(receiver['in_advertising_data'], 'the scan response carried the UUID')
        self.assertIsNone(receiver['capabilities'], '{} is no BLEAdvertisementCapabilities')

    def test_capabilities_from_service_data_else_manufacturer_data(self) -> None:
        # More than 31 octets: what an extended advertising PDU would carry (docs/GHOSTDROP.md).
        encoded = json.dumps(CAPABILITIES, separators=(',', ':')).encode()
        in_service_data = AdvertisingData.from_bytes(structure(0x21, GHOST + encoded))
        self.assertEqual(ghostdrop_scan.capabilities(in_service_data), CAPABILITIES)
        self.assertEqual(ghostdrop_scan.capabilities(AdvertisingData.from_bytes(structure(0xFF, encoded))), CAPABILITIES)
        other_service = AdvertisingData.from_bytes(structure(0x21, OTHER + encoded))
        self.assertIsNone(ghostdrop_scan.capabilities(other_service), 'service data of another UUID')
        self.assertIsNone(ghostdrop_scan.capabilities(AdvertisingData.from_bytes(structure(0xFF, encoded[:27]))))
        self.assertIsNone(ghostdrop_scan.capabilities(AdvertisingData.from_bytes(structure(0xFF, b'[1]'))))

    async def test_errors(self) -> None:
        await self.command('ghostdrop_scan', ok=False, phone='anna', seconds=-1)
        await self.command('ghostdrop_scan', ok=False, phone='anna', name=7)
        await self.command('ghostdrop_scan', ok=False, phone='nobody')
