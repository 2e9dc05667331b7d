"""Settings pairing: the phone as central, a Bumble peripheral as the head unit.

The head unit here is a small Bumble peripheral on the head unit's controller (over
the H4 server), playing what the head unit does in Settings mode: it advertises the
ANCS (and AMS) service solicitation from a resolvable private address, shows a
passkey (DisplayOnly), sends a Security Request, and its GATT client follows
Service Changed to find ANCS and AMS once bonded.
"""

from __future__ import annotations

import asyncio
import json
import struct
import unittest
import uuid

from harness import SimulatorTestCase, att_error, bumble_central, characteristic

from bumble import gatt, hci, smp
from bumble.core import UUID
from bumble.device import AdvertisingType, Peer
from bumble.pairing import PairingConfig, PairingDelegate

from phone import Simulator
from phone.control import ControlProtocol
from phone.controller import central_host
from phone.device import accessories, connection_parameters, settings_pairing
from phone.device.apple_services import (
    AMS_SERVICE_UUID,
    ANCS_CONTROL_POINT_UUID,
    ANCS_DATA_SOURCE_UUID,
    ANCS_NOTIFICATION_SOURCE_UUID,
    ANCS_SERVICE_UUID,
)

NAME = 'HU-Settings'
ANCS_LE = uuid.UUID(ANCS_SERVICE_UUID).bytes[::-1]
AMS_LE = uuid.UUID(AMS_SERVICE_UUID).bytes[::-1]
# Advertising data: Flags (LE General Discoverable, no BR/EDR), the ANCS solicitation;
# scan response: the AMS solicitation and the name.
ADVERTISING_DATA = bytes([2, 0x01, 0x06, 17, 0x15]) + ANCS_LE
SCAN_RESPONSE = bytes([17, 0x15]) + AMS_LE + bytes([1 + len(NAME), 0x09]) + NAME.encode()


class HeadUnitDelegate(PairingDelegate):
    """DisplayOnly: shows the passkey, which the test types into the phone."""

    def __init__(self) -> None:
        super().__init__(
            io_capability=PairingDelegate.IoCapability.DISPLAY_OUTPUT_ONLY,
            local_initiator_key_distribution=PairingDelegate.DEFAULT_KEY_DISTRIBUTION,
            local_responder_key_distribution=PairingDelegate.DEFAULT_KEY_DISTRIBUTION,
        )
        self.shown: asyncio.Queue = asyncio.Queue()

    async def display_number(self, number: int, digits: int) -> None:
        self.shown.put_nowait(f'{number:0{digits}d}')


class RecordingSession(smp.Session):
    """The head unit's SMP: records the AuthReq of the phone's Pairing Request."""

    requests: list[int] = []

    def on_smp_pairing_request_command(self, command) -> None:
        RecordingSession.requests.append(int(command.auth_req))
        super().on_smp_pairing_request_command(command)


class HeadUnit:
    """The accessory: advertising, Security Request on every new link, GATT client."""

    def __init__(self, device, transport) -> None:
        self.device = device
        self.transport = transport
        self.delegate = HeadUnitDelegate()
        self.security_request = True
        self.connections: asyncio.Queue = asyncio.Queue()
        self.bonded: asyncio.Queue = asyncio.Queue()
        self.identity = device.static_address
        RecordingSession.requests = []
        device.smp_session_proxy = RecordingSession
        device.pairing_config_factory = lambda _connection: PairingConfig(
            sc=True,
            mitm=True,
            bonding=True,
            delegate=self.delegate,
            identity_address_type=PairingConfig.AddressType.RANDOM,
        )
        device.on('connection', self._on_connection)

    def _on_connection(self, connection) -> None:
        self.connections.put_nowait(connection)
        connection.on('pairing', lambda keys: self.bonded.put_nowait(keys))
        if self.security_request:
            connection.request_pairing()

    async def advertise(self, rotate: bool = True, address: hci.Address | None = None) -> hci.Address:
        """(Re)start advertising, from a new resolvable private address if `rotate`
        (or from `address`)."""
        await self.device.stop_advertising()
        if rotate or address is not None:
            address = address or hci.Address.generate_private_address(self.device.irk)
            await self.device.send_sync_command(hci.HCI_LE_Set_Random_Address_Command(random_address=address))
            self.device.random_address = address
        self.device.advertising_data = ADVERTISING_DATA
        self.device.scan_response_data = SCAN_RESPONSE
        await self.device.start_advertising(
            advertising_type=AdvertisingType.UNDIRECTED_CONNECTABLE_SCANNABLE,
            own_address_type=hci.OwnAddressType.RANDOM,
            auto_restart=False,
        )
        return self.device.random_address


async def start_head_unit(port: int) -> HeadUnit:
    device, transport, _tap = await bumble_central(port)
    device.advertising_interval_min = device.advertising_interval_max = 20
    return HeadUnit(device, transport)


def has_service(peer: Peer, service_uuid: str) -> bool:
    return bool(peer.get_services_by_uuid(UUID(service_uuid)))


class AdvertisementParsingTests(unittest.TestCase):
    def test_solicitation_and_name(self) -> None:
        heard = accessories.parse(ADVERTISING_DATA)
        self.assertTrue(heard.ancs)
        self.assertFalse(heard.ams)
        self.assertIsNone(heard.name)
        response = accessories.parse(SCAN_RESPONSE)
        self.assertTrue(response.ams)
        self.assertEqual(response.name, NAME)

    def test_hid_and_other_advertisers(self) -> None:
        self.assertTrue(accessories.parse(bytes([3, 0x03, 0x12, 0x18])).hid)
        # A phone advertising a 128-bit service (0x07) is not an accessory.
        phone = accessories.parse(bytes([17, 0x07]) + ANCS_LE)
        self.assertFalse(phone.ancs or phone.hid)

    def test_malformed_structure_keeps_what_came_before(self) -> None:
        heard = accessories.parse(bytes([17, 0x15]) + ANCS_LE + bytes([9, 0x09, 0x41]))
        self.assertTrue(heard.ancs)
        self.assertIsNone(heard.name)


# The head unit's combined payload for a controller with one advertising set or
# legacy advertising only (Tests/HCITests/AdvertisingPayloadTests.swift,
# combinedPayloadBytes): flags and ANCS solicited; NotifBridge's service and the
# name shortened to 11 bytes (AD type 0x08).
NOTIFBRIDGE_LE = uuid.UUID('D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44').bytes[::-1]
COMBINED_ADVERTISING_DATA = bytes([2, 0x01, 0x06, 17, 0x15]) + ANCS_LE
COMBINED_SCAN_RESPONSE = bytes([17, 0x07]) + NOTIFBRIDGE_LE + bytes([12, 0x08]) + b'NotifBdg HU'


class CombinedPayloadTests(unittest.TestCase):
    """Both of iOS's lists find the head unit in its one combined payload."""

    def test_settings_lists_it_under_the_shortened_name(self) -> None:
        heard = accessories.parse(COMBINED_ADVERTISING_DATA + COMBINED_SCAN_RESPONSE)
        self.assertTrue(heard.ancs)
        self.assertEqual((heard.name, heard.shortened), ('NotifBdg HU', True))
        row = accessories.Accessory(address='C4:12:34:56:78:9A')
        row.update(heard, -50)
        self.assertTrue(row.is_called('NotifBdg HU-3F9A21'), 'a person told the whole name taps its beginning')
        self.assertFalse(row.is_called('NotifBdg HX-3F9A21'))
        self.assertEqual(row.describe(bonded=False, connected=False)['names'], ['NotifBdg HU'])

    def test_the_picker_lists_it_too(self) -> None:
        from bumble.core import AdvertisingData
        from phone.notifbridge import picker

        data = AdvertisingData.from_bytes(COMBINED_ADVERTISING_DATA + COMBINED_SCAN_RESPONSE)
        self.assertEqual(picker.matches(data), 'NotifBdg HU')
        self.assertEqual(picker.local_name(data), ('NotifBdg HU', True))
        self.assertTrue(picker.is_called('NotifBdg HU', True, 'NotifBdg HU-3F9A21'))
        self.assertFalse(picker.is_called('NotifBdg HU', False, 'NotifBdg HU-3F9A21'), 'a complete name must match whole')

    def test_a_complete_name_wins_over_a_shortened_one(self) -> None:
        both = bytes([5, 0x09]) + b'Golf' + bytes([3, 0x08]) + b'Go'
        self.assertEqual((accessories.parse(both).name, accessories.parse(both).shortened), ('Golf', False))


class ConnectionParameterRuleTests(unittest.TestCase):
    def test_apple_guidelines(self) -> None:
        rules = connection_parameters.broken_rules
        # 15..30 ms, no latency, 2 s: within the guidelines.
        self.assertEqual(rules(12, 24, 0, 200), [])
        self.assertEqual(rules(12, 12, 0, 200), [])  # both 15 ms
        self.assertEqual(rules(6, 24, 0, 200), ['interval_min'])  # 7.5 ms
        self.assertEqual(rules(16, 40, 0, 200), ['interval_min'])  # 20 ms: not a multiple of 15
        self.assertEqual(rules(24, 24, 0, 200), ['interval_max'])  # 30 = 30 ms
        self.assertEqual(rules(12, 24, 31, 600), ['latency'])
        self.assertEqual(rules(12, 24, 0, 700), ['timeout'])
        # 1.1 s x 2 = 2.2 s, and then no 6 s timeout leaves the margin either.
        self.assertEqual(rules(12, 880, 1, 600), ['interval_max_with_latency', 'timeout_margin'])
        self.assertEqual(rules(12, 400, 1, 300), ['timeout_margin'])  # 0.5 s x 2 x 3 = 3 s


class SecurityRequestAnswerTests(unittest.TestCase):
    def test_ios_answers(self) -> None:
        answer = central_host.security_request_answer
        self.assertEqual(answer(encrypted=False, securing=False, bonded=False), 'pair')
        self.assertEqual(answer(encrypted=False, securing=False, bonded=True), 'encrypt')
        self.assertEqual(answer(encrypted=True, securing=False, bonded=True), 'ignored')
        self.assertEqual(answer(encrypted=False, securing=True, bonded=False), 'ignored')


class IndicationStallTests(unittest.IsolatedAsyncioTestCase):
    async def test_pending_indication_fails_when_the_link_drops(self) -> None:
        from bumble.device import Device

        device = Device.with_hci('server', hci.Address('C0:00:00:00:00:01'), None, None)
        server = device.gatt_server
        central_host.fail_indications_on_disconnection(server)
        bearer = object()
        pending = server.pending_confirmations[bearer] = asyncio.get_running_loop().create_future()
        waiter = asyncio.create_task(asyncio.wait_for(pending, 30))
        await asyncio.sleep(0)
        server.on_disconnection(bearer)
        with self.assertRaises(ConnectionError):
            await asyncio.wait_for(waiter, 0.5)
        self.assertNotIn(bearer, server.pending_confirmations)


class AdvertisingSetTests(SimulatorTestCase):
    """A head unit whose controller has advertising sets advertises with one that
    uses legacy PDUs (Bumble's host does whenever the controller has them)."""

    async def asyncSetUp(self) -> None:
        self.sim = Simulator(link_loss_delay=0.2, advertising_sets=2)
        self.port = await self.sim.start(0)
        self.anna = await self.sim.add_phone('anna', server_app=False)
        self.head_unit = await start_head_unit(self.port)

    async def asyncTearDown(self) -> None:
        await self.head_unit.transport.close()
        await super().asyncTearDown()

    async def test_a_legacy_pdu_set_reaches_the_legacy_scanner_and_connects(self) -> None:
        self.assertTrue(self.head_unit.device.supports_le_extended_advertising)
        self.assertFalse(self.anna.device.supports_le_extended_advertising)
        await self.head_unit.advertise()
        advertising_set = self.head_unit.device.legacy_advertising_set
        self.assertIsNotNone(advertising_set, 'the head unit advertises with a set')
        terminated: asyncio.Queue = asyncio.Queue()
        advertising_set.on('termination', lambda status: terminated.put_nowait(status))
        listed = await self.anna.settings_bluetooth.open_settings(3, NAME)
        found = [a for a in listed if a['name'] == NAME]  # the name: scan response answered
        self.assertEqual(len(found), 1, listed)
        await self.anna.settings_bluetooth.tap(name=NAME)
        await asyncio.wait_for(self.head_unit.connections.get(), 3)
        self.assertEqual(await asyncio.wait_for(terminated.get(), 3), 0)
        self.assertFalse(self.sim.controller.advertising_sets[advertising_set.advertising_handle].enabled)

    async def test_sets_sharing_an_address_each_answer_with_their_own_scan_response(self) -> None:
        # The head unit gives both of its sets its identity address: a scan request
        # is answered by the set whose ADV_IND was heard.
        device = self.head_unit.device
        address = hci.Address('C4:12:34:56:78:9A')
        other = 'HU-Other'
        other_response = bytes([1 + len(other), 0x09]) + other.encode()
        # Set 1 made first: the controller's first set is not the one heard.
        for handle, data, response in ((1, bytes([2, 0x01, 0x06, 17, 0x07]) + ANCS_LE, other_response),
                                       (0, ADVERTISING_DATA, SCAN_RESPONSE)):
            await device.send_sync_command(legacy_set_parameters(handle))
            await device.send_sync_command(hci.HCI_LE_Set_Advertising_Set_Random_Address_Command(
                advertising_handle=handle, random_address=address))
            await device.send_sync_command(hci.HCI_LE_Set_Extended_Advertising_Data_Command(
                advertising_handle=handle, operation=3, fragment_preference=1, advertising_data=data))
            await device.send_sync_command(hci.HCI_LE_Set_Extended_Scan_Response_Data_Command(
                advertising_handle=handle, operation=3, fragment_preference=1, scan_response_data=response))
        await device.send_sync_command(hci.HCI_LE_Set_Extended_Advertising_Enable_Command(
            enable=1, advertising_handles=[0, 1], durations=[0, 0], max_extended_advertising_events=[0, 0]))
        await self.anna.settings_bluetooth.open_settings(3, NAME)
        await asyncio.sleep(1)
        listed = self.anna.settings_bluetooth.listed()
        # One row (one address); each ADV_IND is answered by its own set's scan
        # response, so two sets naming it differently make the row's name flicker:
        # why the head unit gives both sets the same name.
        self.assertEqual(len(listed), 1, listed)
        self.assertEqual(set(listed[0]['names']), {NAME, other})

    async def test_a_set_with_extended_pdus_is_not_seen_by_a_legacy_scanner(self) -> None:
        from bumble.device import AdvertisingEventProperties, AdvertisingParameters

        await self.head_unit.device.create_advertising_set(
            advertising_parameters=AdvertisingParameters(
                advertising_event_properties=AdvertisingEventProperties(is_connectable=True),
                primary_advertising_interval_min=20,
                primary_advertising_interval_max=20,
            ),
            advertising_data=ADVERTISING_DATA,
        )
        listed = await self.anna.settings_bluetooth.open_settings(0.5)
        self.assertEqual(listed, [])


def legacy_set_parameters(handle: int):
    """LE Set Extended Advertising Parameters for a connectable, scannable set with
    legacy PDUs (ADV_IND) from its random address."""
    return hci.HCI_LE_Set_Extended_Advertising_Parameters_Command(
        advertising_handle=handle,
        advertising_event_properties=0x13,
        primary_advertising_interval_min=32,
        primary_advertising_interval_max=32,
        primary_advertising_channel_map=7,
        own_address_type=hci.OwnAddressType.RANDOM,
        peer_address_type=0,
        peer_address=hci.Address.ANY,
        advertising_filter_policy=0,
        advertising_tx_power=0x7F,
        primary_advertising_phy=1,
        secondary_advertising_max_skip=0,
        secondary_advertising_phy=1,
        advertising_sid=0,
        scan_request_notification_enable=0,
    )


class AdvertisingSetCountTests(SimulatorTestCase):
    """`--advertising-sets N`: the controller has N sets, and says so."""

    async def head_unit_with(self, sets: int):
        await self.sim.stop()
        self.sim = Simulator(advertising_sets=sets)
        self.port = await self.sim.start(0)
        self.head_unit = await start_head_unit(self.port)
        self.addAsyncCleanup(self.head_unit.transport.close)
        return self.head_unit.device

    async def test_one_set_is_counted_and_a_second_refused(self) -> None:
        device = await self.head_unit_with(1)
        count = await device.send_sync_command(hci.HCI_LE_Read_Number_Of_Supported_Advertising_Sets_Command())
        self.assertEqual(count.num_supported_advertising_sets, 1)
        first = await device.send_sync_command_raw(legacy_set_parameters(0))
        self.assertEqual(first.return_parameters.status, hci.HCI_SUCCESS)
        second = await device.send_sync_command_raw(legacy_set_parameters(1))
        self.assertEqual(second.return_parameters.status, hci.HCI_MEMORY_CAPACITY_EXCEEDED_ERROR)

    async def test_an_address_for_a_set_without_parameters_is_refused(self) -> None:
        device = await self.head_unit_with(2)
        reply = await device.send_sync_command_raw(hci.HCI_LE_Set_Advertising_Set_Random_Address_Command(
            advertising_handle=1, random_address=hci.Address('C4:12:34:56:78:9A')))
        self.assertEqual(reply.return_parameters.status, hci.HCI_ErrorCode.UNKNOWN_ADVERTISING_IDENTIFIER_ERROR)

    def test_the_switch(self) -> None:
        from phone.cli import parse_arguments

        self.assertEqual(parse_arguments([]).advertising_sets, 0, 'legacy advertising only by default')
        self.assertEqual(parse_arguments(['--advertising-sets']).advertising_sets, 2)
        self.assertEqual(parse_arguments(['--advertising-sets', '1']).advertising_sets, 1)


class AdvertisingFilterPolicyTests(SimulatorTestCase):
    """A bonded head unit advertises for its phone only: scan and connection
    requests from its filter accept list alone (Advertising_Filter_Policy 3)."""

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna', server_app=False)
        self.head_unit = await start_head_unit(self.port)

    async def asyncTearDown(self) -> None:
        await self.head_unit.transport.close()
        await super().asyncTearDown()

    async def advertise(self, accept: hci.Address | None) -> None:
        device = self.head_unit.device
        await device.send_sync_command(hci.HCI_LE_Set_Advertising_Enable_Command(advertising_enable=0))
        await device.send_sync_command(hci.HCI_LE_Clear_Filter_Accept_List_Command())
        if accept is not None:
            await device.send_sync_command(
                hci.HCI_LE_Add_Device_To_Filter_Accept_List_Command(address_type=accept.address_type, address=accept)
            )
        await device.send_sync_command(
            hci.HCI_LE_Set_Advertising_Parameters_Command(
                advertising_interval_min=0x20,
                advertising_interval_max=0x20,
                advertising_type=0,
                own_address_type=hci.OwnAddressType.PUBLIC,
                peer_address_type=0,
                peer_address=hci.Address.ANY,
                advertising_channel_map=0x07,
                advertising_filter_policy=3,
            )
        )
        await device.send_sync_command(hci.HCI_LE_Set_Advertising_Data_Command(advertising_data=ADVERTISING_DATA))
        await device.send_sync_command(hci.HCI_LE_Set_Scan_Response_Data_Command(scan_response_data=SCAN_RESPONSE))
        await device.send_sync_command(hci.HCI_LE_Set_Advertising_Enable_Command(advertising_enable=1))

    async def test_only_a_listed_phone_gets_the_scan_response_and_connects(self) -> None:
        await self.advertise(accept=None)
        listed = await self.anna.settings_bluetooth.open_settings(1.0)
        self.assertEqual(len(listed), 1, listed)
        self.assertIsNone(listed[0]['name'], 'no scan response for a scanner not on the list')
        self.assertEqual(listed[0]['address_type'], 'public')
        with self.assertRaises(Exception) as raised:
            await self.anna.settings_bluetooth.tap(address=listed[0]['address'], timeout=2)
        # Connection Failed to be Established: the CONNECT_IND was ignored.
        self.assertEqual(getattr(raised.exception, 'error_code', None), 0x3E, raised.exception)
        self.assertTrue(self.head_unit.connections.empty())

        await self.advertise(accept=self.anna.device.random_address)
        listed = await self.anna.settings_bluetooth.open_settings(2.0, NAME)
        self.assertEqual([a['name'] for a in listed], [NAME])
        await self.anna.settings_bluetooth.tap(name=NAME, timeout=2)
        await asyncio.wait_for(self.head_unit.connections.get(), 3)


class SettingsTestCase(SimulatorTestCase):
    """A stock iPhone `anna` (no Server app) and the head unit as peripheral."""

    phone_settings: dict = {}
    security_request = True

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna', server_app=False, **self.phone_settings)
        self.head_unit = await start_head_unit(self.port)
        self.head_unit.security_request = self.security_request
        self.control = ControlProtocol(self.sim, on_quit=lambda: None)

    async def asyncTearDown(self) -> None:
        await self.head_unit.transport.close()
        await super().asyncTearDown()

    async def command(self, **command) -> dict:
        """A control command as the CLI runs it: the reply must be a JSON line."""
        reply = await self.control.handle_line(json.dumps(command))
        self.assertTrue(reply['ok'], reply)
        json.dumps(reply)
        return reply

    def tearDown(self) -> None:
        json.dumps(self.sim.events)  # every event goes out as a JSON line too
        super().tearDown()

    async def pair_from_settings(self):
        """List, tap, type the shown passkey; returns the head unit's connection."""
        await self.head_unit.advertise()
        mark = self.sim.event_mark()
        listed = await self.command(cmd='list_accessories', phone='anna', wait=3, name=NAME)
        found = [a for a in listed['accessories'] if a['name'] == NAME]
        self.assertEqual(len(found), 1, listed)
        self.assertTrue(found[0]['ancs'] and found[0]['ams'])
        self.assertEqual(found[0]['address'], self.head_unit.device.random_address.to_string(False))
        await self.command(cmd='tap_accessory', phone='anna', name=NAME)
        connection = await asyncio.wait_for(self.head_unit.connections.get(), 3)
        await self.sim.wait_for('passkey_requested', phone='anna', after=mark, timeout=5)
        passkey = await asyncio.wait_for(self.head_unit.delegate.shown.get(), 3)
        await self.command(cmd='type_passkey', phone='anna', digits=passkey)
        paired = await self.sim.wait_for('paired', phone='anna', after=mark, timeout=5)
        self.assertEqual(paired['peer'], self.head_unit.identity.to_string(False))
        self.assertEqual((paired['method'], paired['mitm'], paired['secure_connections']), ('passkey', True, True))
        return connection, mark

    async def read_a_notification(self, peer: Peer) -> None:
        """Subscribe to ANCS, let the phone post a Maps instruction, fetch its Title."""
        sources: asyncio.Queue = asyncio.Queue()
        data: asyncio.Queue = asyncio.Queue()
        await characteristic(peer, ANCS_DATA_SOURCE_UUID).subscribe(lambda v: data.put_nowait(bytes(v)))
        await characteristic(peer, ANCS_NOTIFICATION_SOURCE_UUID).subscribe(lambda v: sources.put_nowait(bytes(v)))
        await self.command(cmd='post_notification', phone='anna', app='com.google.Maps', category='location',
                           title='In 300 m', message='Turn left')
        source = await asyncio.wait_for(sources.get(), 3)
        self.assertEqual(source[0], 0)  # Added
        uid = source[4:8]
        await characteristic(peer, ANCS_CONTROL_POINT_UUID).write_value(
            bytes([0]) + uid + bytes([1, 32, 0]), with_response=True
        )
        response = await asyncio.wait_for(data.get(), 3)
        self.assertEqual(response[:5], bytes([0]) + uid)
        self.assertEqual(response[5:], bytes([1, 8, 0]) + b'In 300 m')

    async def tap_and_discover(self):
        """Advertise, list, tap; the head unit discovers the phone's database at once.
        Returns (connection, peer, mark)."""
        await self.head_unit.advertise()
        await self.command(cmd='list_accessories', phone='anna', wait=3, name=NAME)
        mark = self.sim.event_mark()
        await self.command(cmd='tap_accessory', phone='anna', name=NAME)
        connection = await asyncio.wait_for(self.head_unit.connections.get(), 3)
        peer = Peer(connection)
        await peer.discover_services()
        await peer.discover_characteristics()
        return connection, peer, mark


class SettingsPairingTests(SettingsTestCase):
    phone_settings = {'apple_services': 'after_bonding'}

    async def test_waiting_for_a_name_sees_a_listed_accessory_change_its_name(self) -> None:
        # An accessory that takes turns between two advertisements (the head unit's
        # Settings and NotifBridge ones) is listed under one name, then the other:
        # waiting for the second name ends when the row changes, not at the timeout.
        await self.head_unit.advertise(rotate=False)
        listed = await self.command(cmd='list_accessories', phone='anna', wait=3, name=NAME)
        self.assertEqual([a['name'] for a in listed['accessories']], [NAME])
        other = 'HU-Other NotifBdg'
        response = bytes([1 + len(other), 0x09]) + other.encode()
        await self.head_unit.device.send_sync_command(hci.HCI_LE_Set_Scan_Response_Data_Command(
            scan_response_data=response))
        started = asyncio.get_running_loop().time()
        listed = await self.command(cmd='list_accessories', phone='anna', wait=5, name=other)
        self.assertEqual([a['name'] for a in listed['accessories']], [other])
        self.assertLess(asyncio.get_running_loop().time() - started, 2.0, 'waited for the timeout, not the name')
        # The row keeps every name it showed, and the change is an event.
        self.assertEqual(listed['accessories'][0]['names'], [NAME, other])
        renamed = self.sim.find_event('accessory_renamed', phone='anna')
        self.assertIsNotNone(renamed)
        self.assertEqual((renamed['before'], renamed['name']), (NAME, other))

    async def test_settings_pairing_as_ios(self) -> None:
        connection, mark = await self.pair_from_settings()
        connected = self.sim.find_event('connected', mark, phone='anna')
        self.assertEqual(connected['role'], 'central')
        # From a resolvable private address, which the head unit resolves with the
        # IRK the phone distributed.
        self.assertTrue(connection.peer_resolvable_address is not None or connection.peer_address.is_resolvable)
        await asyncio.wait_for(self.head_unit.bonded.get(), 3)
        bonds = dict(await self.head_unit.device.keystore.get_all())
        self.assertEqual(len(bonds), 1, bonds)
        (name, keys), = bonds.items()
        self.assertEqual(name.split('/')[0], self.anna.identity.identity_address)
        self.assertEqual(keys.irk.value, self.anna.identity.irk, 'the phone distributes its IRK')
        # iOS's own Exchange MTU Request.
        mtu = await self.sim.wait_for('mtu', phone='anna', after=mark)
        self.assertEqual((mtu['requested'], mtu['mtu']), (185, 185))
        # Pairing Request with Bonding, MITM, SC and CT2 (AuthReq 0x2D).
        self.assertEqual(RecordingSession.requests, [0x2D])
        # The Security Request came while the phone's own pairing ran: answered by it.
        answered = await self.sim.wait_for('security_request', phone='anna', after=mark)
        self.assertIn(answered['answer'], ('pair', 'ignored'))
        await self.sim.wait_for('encrypted', phone='anna', encrypted=True, after=mark)
        state = await self.command(cmd='state', phone='anna')
        self.assertTrue(state['encrypted'])
        self.assertEqual(state['accessory_bonds'], [self.head_unit.identity.to_string(False)])
        self.assertEqual(state['notification_access'], {self.head_unit.identity.to_string(False): 'allowed'})

    async def test_connection_parameters_within_apple_guidelines_only(self) -> None:
        connection, mark = await self.pair_from_settings()
        device = self.head_unit.device
        with self.assertRaises(Exception):  # 7.5 ms: below the guidelines
            await device.update_connection_parameters(connection, 7.5, 30, 0, 2000, use_l2cap=True)
        rejected = await self.sim.wait_for('connection_parameters_request', phone='anna', after=mark)
        self.assertEqual((rejected['result'], rejected['broken']), ('rejected', ['interval_min']))
        updated: asyncio.Queue = asyncio.Queue()
        connection.on('connection_parameters_update', lambda: updated.put_nowait(connection.parameters))
        mark = self.sim.event_mark()
        await device.update_connection_parameters(connection, 15, 30, 0, 2000, use_l2cap=True)
        parameters = await asyncio.wait_for(updated.get(), 3)
        self.assertEqual(parameters.connection_interval, 30)
        accepted = await self.sim.wait_for('connection_parameters_request', phone='anna', after=mark)
        self.assertEqual((accepted['result'], accepted['interval_min_ms']), ('accepted', 15.0))

    async def test_a_stranger_only_holds_the_link_and_a_second_phone_connects_beside_it(self) -> None:
        # `secure: false`: the phone connects and sits there; the head unit's
        # Security Request is ignored and nothing is paired or encrypted.
        await self.head_unit.advertise()
        await self.command(cmd='list_accessories', phone='anna', wait=3, name=NAME)
        mark = self.sim.event_mark()
        await self.command(cmd='tap_accessory', phone='anna', name=NAME, secure=False)
        held = await asyncio.wait_for(self.head_unit.connections.get(), 3)
        answered = await self.sim.wait_for('security_request', phone='anna', after=mark, timeout=5)
        self.assertEqual(answered['answer'], 'ignored')
        await asyncio.sleep(1.0)
        self.assertIsNone(self.sim.find_event('passkey_requested', mark, phone='anna'))
        self.assertFalse(held.is_encrypted)
        # The advertising ended with the connection (as a controller ends it);
        # enabled again while the stranger is connected, it takes a second
        # phone's connection beside the first.
        bob = await self.sim.add_phone('bob', server_app=False)
        await self.head_unit.advertise(rotate=False)
        listed = await bob.settings_bluetooth.open_settings(3, NAME)
        self.assertTrue(any(a['name'] == NAME for a in listed), listed)
        await self.command(cmd='tap_accessory', phone='bob', name=NAME, secure=False)
        second = await asyncio.wait_for(self.head_unit.connections.get(), 3)
        self.assertNotEqual(second.handle, held.handle)
        self.assertEqual(len(self.head_unit.device.connections), 2)

    async def test_an_accessory_that_went_quiet_drops_off_the_list(self) -> None:
        await self.head_unit.advertise()
        listed = await self.command(cmd='list_accessories', phone='anna', wait=3, name=NAME)
        self.assertEqual([a['name'] for a in listed['accessories']], [NAME])
        await self.head_unit.device.stop_advertising()
        await asyncio.sleep(0.1)
        for accessory in self.anna.settings_bluetooth.accessories.values():
            accessory.last_seen -= settings_pairing.LIST_TIMEOUT_S  # as if 10 s went by
        listed = await self.command(cmd='list_accessories', phone='anna')
        self.assertEqual(listed['accessories'], [])
        closed = await self.command(cmd='close_settings', phone='anna')
        self.assertFalse(closed['settings_open'])
        self.assertFalse(self.anna.device.scanning)

    async def test_reconnects_after_link_loss_with_the_address_rotated(self) -> None:
        await self.pair_from_settings()
        mark = self.sim.event_mark()
        await self.anna.go_out_of_range()
        await self.sim.wait_for('disconnected', phone='anna', after=mark, timeout=3)
        old = self.head_unit.device.random_address
        new = await self.head_unit.advertise(rotate=True)
        self.assertNotEqual(old, new)
        await self.anna.come_into_range()
        reconnecting = await self.sim.wait_for('reconnecting', phone='anna', after=mark, timeout=5)
        self.assertEqual(reconnecting['address'], new.to_string(False))
        self.assertEqual(reconnecting['peer'], self.head_unit.identity.to_string(False))
        encrypted = await self.sim.wait_for('encrypted', phone='anna', encrypted=True, after=mark, timeout=5)
        self.assertTrue(encrypted['bonded'] and encrypted['authenticated'])
        self.assertIsNone(self.sim.find_event('passkey_requested', mark, phone='anna'))


    async def test_reconnects_to_an_accessory_advertising_its_identity_address(self) -> None:
        """An accessory without privacy: recognised by its identity address, and
        connected to while the reconnection scan runs."""
        await self.pair_from_settings()
        mark = self.sim.event_mark()
        await self.command(cmd='disconnect', phone='anna')
        await self.sim.wait_for('disconnected', phone='anna', after=mark)
        self.assertTrue(self.anna.device.scanning)
        identity = self.head_unit.identity
        self.assertTrue(self.anna.device.address_resolver.can_resolve_to(identity))
        await self.head_unit.advertise(address=identity)
        reconnecting = await self.sim.wait_for('reconnecting', phone='anna', after=mark, timeout=3)
        self.assertEqual(reconnecting['address'], identity.to_string(False))
        await self.sim.wait_for('encrypted', phone='anna', encrypted=True, bonded=True, after=mark, timeout=3)

    async def test_connecting_to_an_absent_identity_is_bounded_by_the_timeout(self) -> None:
        """Uncorrected, Bumble looks the identity up by scanning first, with no time
        limit: a connection to an accessory that is away would never end."""
        await self.pair_from_settings()
        mark = self.sim.event_mark()
        self.anna.settings_bluetooth.bonded.clear()  # iOS's own reconnection off
        await self.command(cmd='disconnect', phone='anna')
        await self.sim.wait_for('disconnected', phone='anna', after=mark)
        loop = asyncio.get_running_loop()
        started = loop.time()
        with self.assertRaises(Exception) as raised:
            await asyncio.wait_for(central_host.connect_advertiser(self.anna.device, self.head_unit.identity, 0.3), 3)
        self.assertNotIsInstance(raised.exception, asyncio.TimeoutError)
        self.assertLess(loop.time() - started, 2)

    async def test_ancs_published_after_bonding_with_service_changed(self) -> None:
        connection, peer, mark = await self.tap_and_discover()
        # Before bonding: no ANCS or AMS; the head unit subscribes to Service Changed.
        self.assertFalse(has_service(peer, ANCS_SERVICE_UUID) or has_service(peer, AMS_SERVICE_UUID))
        changes: asyncio.Queue = asyncio.Queue()
        await characteristic(peer, gatt.GATT_SERVICE_CHANGED_CHARACTERISTIC.to_hex_str()).subscribe(
            lambda value: changes.put_nowait(bytes(value)), prefer_notify=False
        )
        await self.sim.wait_for('passkey_requested', phone='anna', after=mark, timeout=5)
        await self.command(cmd='type_passkey', phone='anna', digits=await self.head_unit.delegate.shown.get())
        start, end = struct.unpack('<HH', await asyncio.wait_for(changes.get(), 5))
        changed = await self.sim.wait_for('services_changed', phone='anna', after=mark)
        self.assertEqual((changed['start'], changed['end']), (start, end))
        # Rediscovered: ANCS and AMS are in the announced range.
        peer = Peer(connection)
        await peer.discover_services()
        await peer.discover_characteristics()
        for service_uuid in (ANCS_SERVICE_UUID, AMS_SERVICE_UUID):
            service, = peer.get_services_by_uuid(UUID(service_uuid))
            self.assertTrue(start <= service.handle <= service.end_group_handle <= end)
        await self.read_a_notification(peer)


class AccessoryPersistenceTests(unittest.IsolatedAsyncioTestCase):
    async def test_accessory_bonds_survive_a_restart(self) -> None:
        import tempfile

        with tempfile.TemporaryDirectory() as state:
            sim = Simulator(state_dir=state, link_loss_delay=0.2)
            port = await sim.start(0)
            anna = await sim.add_phone('anna', server_app=False, notification_prompt='ask')
            head_unit = await start_head_unit(port)
            try:
                await head_unit.advertise()
                await anna.settings_bluetooth.open_settings(3, NAME)
                await anna.settings_bluetooth.tap(name=NAME)
                await sim.wait_for('passkey_requested', phone='anna')
                anna.type_passkey(await asyncio.wait_for(head_unit.delegate.shown.get(), 3))
                await sim.wait_for('notification_prompt', phone='anna', state='pending')
                identity = head_unit.identity.to_string(False)
                self.assertEqual(anna.settings_bluetooth.allow(True), [identity])
            finally:
                await head_unit.transport.close()
                await sim.stop()

            sim = Simulator(state_dir=state)
            await sim.start(0)
            try:
                anna = await sim.add_phone('anna', server_app=False)
                restored = anna.state()
                self.assertEqual(restored['accessory_bonds'], [identity])
                self.assertEqual(restored['notification_access'], {identity: 'allowed'})
                self.assertTrue(anna.device.scanning, 'looking for the bonded accessory')
                await anna.forget_bond(identity)
            finally:
                await sim.stop()
            sim = Simulator(state_dir=state)
            await sim.start(0)
            try:
                anna = await sim.add_phone('anna', server_app=False)
                self.assertEqual(anna.state()['accessory_bonds'], [])
                self.assertFalse(anna.device.scanning)
            finally:
                await sim.stop()


class NotificationAccessTests(SettingsTestCase):
    """ANCS always published; iOS's security and its "Allow notifications?" prompt."""

    phone_settings = {'notification_prompt': 'ask'}
    security_request = False

    async def cccd_write(self, peer: Peer, uuid_text: str) -> int | None:
        return await att_error(characteristic(peer, uuid_text).subscribe(lambda _value: None))

    async def test_insufficient_authentication_then_authorization(self) -> None:
        _connection, peer, mark = await self.tap_and_discover()
        # Pairing waits for the passkey: not yet authenticated.
        await self.sim.wait_for('passkey_requested', phone='anna', after=mark, timeout=5)
        self.assertEqual(await self.cccd_write(peer, ANCS_NOTIFICATION_SOURCE_UUID), 0x05)
        await self.command(cmd='type_passkey', phone='anna', digits=await self.head_unit.delegate.shown.get())
        prompt = await self.sim.wait_for('notification_prompt', phone='anna', after=mark)
        self.assertEqual(prompt['state'], 'pending')
        await self.sim.wait_for('encrypted', phone='anna', encrypted=True, after=mark)
        # The prompt is open: 0x08 Insufficient Authorization; AMS is not asked for.
        self.assertEqual(await self.cccd_write(peer, ANCS_NOTIFICATION_SOURCE_UUID), 0x08)
        self.assertEqual(await self.cccd_write(peer, ANCS_DATA_SOURCE_UUID), 0x08)
        answered = await self.command(cmd='allow_notifications', phone='anna', allow=True)
        self.assertEqual(answered['answered'], [self.head_unit.identity.to_string(False)])
        await self.read_a_notification(peer)

    async def test_bonded_but_not_encrypted_then_security_request_encrypts(self) -> None:
        connection, mark = await self.pair_from_settings()
        await self.command(cmd='allow_notifications', phone='anna')
        identity = self.head_unit.identity.to_string(False)
        await self.command(cmd='disconnect', phone='anna')
        await self.sim.wait_for('disconnected', phone='anna', after=mark)
        # The phone connects without securing the link (as the head unit first sees
        # a reconnecting iPhone); its own background reconnection stands aside.
        mark = self.sim.event_mark()
        linking = asyncio.create_task(self.anna.settings_bluetooth.connect(self.head_unit.device.random_address))
        await self.head_unit.advertise(rotate=False)
        await linking
        connection = await asyncio.wait_for(self.head_unit.connections.get(), 3)
        peer = Peer(connection)
        await peer.discover_services()
        await peer.discover_characteristics()
        self.assertEqual(await self.cccd_write(peer, ANCS_NOTIFICATION_SOURCE_UUID), 0x0F)
        connection.request_pairing()  # the head unit's Security Request
        answered = await self.sim.wait_for('security_request', phone='anna', after=mark)
        self.assertEqual((answered['peer'], answered['answer']), (identity, 'encrypt'))
        await self.sim.wait_for('encrypted', phone='anna', encrypted=True, bonded=True, after=mark)
        self.assertIsNone(self.sim.find_event('passkey_requested', mark, phone='anna'))
        await self.read_a_notification(peer)

    async def test_forget_this_device(self) -> None:
        await self.pair_from_settings()
        identity = self.head_unit.identity.to_string(False)
        mark = self.sim.event_mark()
        reply = await self.command(cmd='forget_bond', phone='anna', peer=identity)
        self.assertEqual(reply['forgotten'], [identity])
        self.assertEqual(reply['accessory_bonds'], [])
        await self.sim.wait_for('disconnected', phone='anna', after=mark)
        await self.head_unit.advertise()
        await asyncio.sleep(0.5)
        self.assertIsNone(self.sim.find_event('reconnecting', mark, phone='anna'))
        self.assertIsNone(self.sim.find_event('connected', mark, phone='anna'))


if __name__ == '__main__':
    unittest.main()
