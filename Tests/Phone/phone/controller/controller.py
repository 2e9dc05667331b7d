"""A Bumble virtual controller corrected to behave like a real LE controller.

Each override below names the deviation of Bumble 0.0.236 it corrects. The raw-byte
corrections of the HCI transport itself (event masks, ACL fragmentation, buffer
accounting) live in host_interface.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import secrets
import struct

from bumble import controller as bumble_controller
from bumble import crypto, hci, ll
from bumble.core import PhysicalTransport

from . import advertising_sets as advertising_sets_module
from . import broadcom
from . import capabilities
from .link import SimulatedLink

logger = logging.getLogger(__name__)

# HCI status codes (Core spec Vol 1, Part F).
SUCCESS = 0x00
UNKNOWN_HCI_COMMAND = 0x01
UNKNOWN_CONNECTION_IDENTIFIER = 0x02
MEMORY_CAPACITY_EXCEEDED = 0x07
CONNECTION_TIMEOUT = 0x08
ACL_CONNECTION_ALREADY_EXISTS = 0x0B
COMMAND_DISALLOWED = 0x0C
INVALID_HCI_COMMAND_PARAMETERS = 0x12
CONNECTION_TERMINATED_BY_LOCAL_HOST = 0x16
CONNECTION_FAILED_TO_BE_ESTABLISHED = 0x3E
UNSUPPORTED_FEATURE = 0x11
UNSPECIFIED_ERROR = 0x1F

# Reasons a host may give in HCI_Disconnect (Core spec Vol 4, Part E, 7.1.6).
_DISCONNECT_REASONS = {0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B}

PHY_1M = 1
PHY_2M = 2

SUBEVENT_LE_READ_LOCAL_P256_PUBLIC_KEY_COMPLETE = 0x08
SUBEVENT_LE_EXTENDED_ADVERTISING_REPORT = 0x0D
SUBEVENT_LE_SCAN_TIMEOUT = 0x11
SUBEVENT_LE_GENERATE_DHKEY_COMPLETE = 0x09

# Time a link-layer procedure (version exchange, PHY or data length update) takes:
# a few connection events.
PROCEDURE_DELAY = 0.02


@dataclasses.dataclass
class LinkState:
    """What the link layer knows about one connection beyond Bumble's Connection."""

    interval: int = 24
    latency: int = 0
    supervision_timeout: int = 400  # units of 10 ms
    tx_phy: int = PHY_1M
    rx_phy: int = PHY_1M
    tx_octets: int = capabilities.MIN_DATA_OCTETS
    rx_octets: int = capabilities.MIN_DATA_OCTETS


@dataclasses.dataclass
class TimedLegacyAdvertiser(bumble_controller.LegacyAdvertiser):
    """Correction: one advertising event every Advertising_Interval x 0.625 ms plus
    the 0..10 ms random advDelay (Bumble waits interval/1000 seconds)."""

    def _on_timer_fired(self) -> None:
        self.send_advertising_data()
        interval = max(self.advertising_interval_min, 0x20) * 0.000625 + random.uniform(0, 0.010)
        self.timer_handle = asyncio.get_running_loop().call_later(interval, self._on_timer_fired)


# Advertising_Filter_Policy (Core spec Vol 4, Part E, 7.8.5): bit 0 limits scan
# requests, bit 1 connection requests, to devices on the filter accept list.
SCAN_REQUESTS = 0x01
CONNECT_REQUESTS = 0x02


def _accepts(advertiser, controller, address: hci.Address, requests: int) -> bool:
    """Whether an advertiser takes scan (or connection) requests from `address`
    (with LL Privacy, a private address is checked as the identity it resolves to)."""
    policy = getattr(advertiser, 'advertising_filter_policy', 0) or 0
    if not policy & requests:
        return True
    resolve = getattr(controller, 'resolve', None)
    identity = resolve(address) if resolve is not None else None
    return (identity or address) in getattr(controller, 'filter_accept_list', ())


@dataclasses.dataclass
class PendingConnection:
    """An LE Extended Create Connection as the initiator uses it: the fields of an
    LE Create Connection, with the LE 1M parameters."""

    peer_address: hci.Address
    initiator_filter_policy: int
    own_address_type: int
    connection_interval_max: int
    max_latency: int
    supervision_timeout: int


# Legacy advertising report Event_Type -> Event_Type bits of an LE Extended
# Advertising Report for the same legacy PDU (Core spec Vol 4, Part E, 7.7.65.13).
_EXTENDED_EVENT_TYPES = {
    hci.HCI_LE_Advertising_Report_Event.EventType.ADV_IND: 0x13,
    hci.HCI_LE_Advertising_Report_Event.EventType.ADV_DIRECT_IND: 0x15,
    hci.HCI_LE_Advertising_Report_Event.EventType.ADV_SCAN_IND: 0x12,
    hci.HCI_LE_Advertising_Report_Event.EventType.ADV_NONCONN_IND: 0x10,
    hci.HCI_LE_Advertising_Report_Event.EventType.SCAN_RSP: 0x1B,
}


def _extended_report(event_type: int, address_type: int, address: hci.Address, data: bytes, rssi: int) -> bytes:
    """One report of a legacy PDU in an LE Extended Advertising Report: primary PHY
    LE 1M, no secondary PHY, no SID (0xFF), TX power unknown (0x7F), no periodic
    advertising, no direct address."""
    return (
        bytes([1])
        + struct.pack('<HB', _EXTENDED_EVENT_TYPES[event_type], address_type)
        + bytes(address.address_bytes)
        + struct.pack('<BBBbbHB', PHY_1M, 0, 0xFF, 0x7F, rssi, 0, 0)
        + bytes(6)
        + bytes([len(data)])
        + bytes(data)
    )


def raw_event(code: int, parameters: bytes) -> hci.HCI_CustomPacket:
    return hci.HCI_CustomPacket(bytes([hci.HCI_EVENT_PACKET, code, len(parameters)]) + parameters)


class CorrectedController(bumble_controller.Controller):
    """An LE-only controller for one device on a SimulatedLink."""

    def __init__(
        self,
        name: str,
        link: SimulatedLink,
        public_address: str,
        *,
        acl_size: int = 27,
        acl_buffers: int = 8,
        manufacturer: int = 0x000F,
        rssi: int = -50,
        link_loss_delay: float | None = None,
        autonomous_data_length: int | None = None,
        advertising_sets: int = 0,
        variant: capabilities.ControllerVariant = capabilities.ControllerVariant(),
    ) -> None:
        super().__init__(name, link=link, public_address=public_address)
        # Where real chips differ (capabilities.ControllerVariant).
        self.variant = variant
        self.le_features = variant.le_features()
        self.supported_commands = variant.commands()
        # How many advertising sets it has (advertising_sets.py); 0: legacy
        # advertising only. Extended scanning is the variant's (extended_scanning).
        self.advertising_set_count = int(advertising_sets)
        if advertising_sets:
            self.le_features |= hci.LeFeatureMask.LE_EXTENDED_ADVERTISING
            self.supported_commands = self.supported_commands | advertising_sets_module.COMMANDS
        self.le_acl_data_packet_length = acl_size
        self.total_num_le_acl_data_packets = acl_buffers
        self.acl_data_packet_length = acl_size
        self.total_num_acl_data_packets = acl_buffers
        self.manufacturer_company_identifier = manufacturer
        # A Pi's Broadcom chip answers the kernel's btbcm bring-up (broadcom.py).
        self.broadcom = broadcom.BroadcomChip(variant.broadcom) if variant.broadcom else None
        if self.broadcom is not None:
            self.manufacturer_company_identifier = broadcom.MANUFACTURER_BROADCOM
            self.lmp_subversion = self.broadcom.subversion
            self.hci_revision = self.broadcom.hci_revision
        self.hci_version = hci.HCI_VERSION_BLUETOOTH_CORE_5_0
        self.lmp_version = hci.HCI_VERSION_BLUETOOTH_CORE_5_0
        self.supported_max_tx_octets = capabilities.MAX_DATA_OCTETS
        self.supported_max_rx_octets = capabilities.MAX_DATA_OCTETS
        self.supported_max_tx_time = capabilities.data_time(capabilities.MAX_DATA_OCTETS)
        self.supported_max_rx_time = capabilities.data_time(capabilities.MAX_DATA_OCTETS)
        # RSSI at which the other devices on the link receive this one.
        self.rssi = rssi
        # Seconds until a peer notices a vanished link; None = the supervision timeout.
        self.link_loss_delay = link_loss_delay
        # Data length the controller negotiates by itself after a connection (as
        # iPhones do), or None.
        self.autonomous_data_length = autonomous_data_length
        self.le_legacy_advertiser = TimedLegacyAdvertiser(self)
        self.filter_accept_list: list[hci.Address] = []
        # LL Privacy: (peer identity address, peer IRK) in the order added.
        self.resolving_list: list[tuple[hci.Address, bytes]] = []
        self.le_address_resolution = False
        # Connection handle -> the private address a resolved peer used on air.
        self.resolved_private_addresses: dict[int, hci.Address] = {}
        self.link_states: dict[int, LinkState] = {}
        self._reported: set[tuple[str, int, bytes]] = set()
        self._p256_key = None
        # Core spec Vol 4, Part E, 3.1.1 with variant.no_mixing: the group of
        # advertising, scanning and initiating commands ('legacy' or 'extended')
        # the host has used since HCI_Reset.
        self.advertising_group: str | None = None
        # Scanning enabled with LE Set Extended Scan Enable reports in the extended
        # format (LE Extended Advertising Report), with the legacy command in the legacy one.
        self.extended_reports = False
        self._scan_timeout = None

    # ======================================================================
    # Command dispatch
    # ======================================================================
    def on_packet(self, packet: bytes) -> None:
        """Correction: a command whose parameters do not parse gets Invalid HCI
        Command Parameters instead of an exception inside the simulator."""
        try:
            parsed = hci.HCI_Packet.from_bytes(packet)
        except Exception:  # noqa: BLE001 - any parse failure is the host's fault
            if packet[:1] == bytes([hci.HCI_COMMAND_PACKET]) and len(packet) >= 3:
                opcode = packet[1] | packet[2] << 8
                self._answer_status(opcode, INVALID_HCI_COMMAND_PARAMETERS)
            else:
                logger.warning('[%s] dropped unparsable packet %s', self.name, packet.hex())
            return
        self.on_hci_packet(parsed)

    def on_hci_command_packet(self, command: hci.HCI_Command) -> None:
        """Correction: Bumble never answers an unknown asynchronous command and
        claims commands it only stubs. Anything outside capabilities.SUPPORTED_COMMANDS
        is answered Unknown HCI Command, with the event type the host waits for."""
        opcode = command.op_code
        if opcode not in self.supported_commands:
            logger.info('[%s] unknown command 0x%04X (%s)', self.name, opcode, command.name)
            self._answer_status(opcode, UNKNOWN_HCI_COMMAND)
            return
        if not self._group_allowed(opcode):
            logger.info('[%s] %s refused: %s commands were used since HCI_Reset', self.name, command.name,
                        self.advertising_group)
            self._answer_status(opcode, COMMAND_DISALLOWED)
            return
        if self.broadcom is not None and opcode in broadcom.COMMANDS:
            self._command_complete(opcode, self.broadcom.answer(opcode, bytes(command.parameters)))
            self.hci_revision = self.broadcom.hci_revision
            return
        try:
            raw_handler = self._raw_handlers.get(opcode)
            if raw_handler is not None:
                raw_handler(self, command)
            else:
                super().on_hci_command_packet(command)
        except Exception:  # noqa: BLE001 - keep the controller alive, tell the host
            logger.exception('[%s] command 0x%04X failed', self.name, opcode)
            self._answer_status(opcode, UNSPECIFIED_ERROR)

    def _group_allowed(self, opcode: int) -> bool:
        """With variant.no_mixing, the first legacy or extended advertising, scanning
        or initiating command after HCI_Reset decides the group; a command of the
        other is refused (Core spec Vol 4, Part E, 3.1.1), as real chips and
        Android's rootcanal do. Bumble lets the host mix them."""
        group = capabilities.advertising_group(opcode)
        if not self.variant.no_mixing or group is None:
            return True
        if self.advertising_group is None:
            self.advertising_group = group
        return group == self.advertising_group

    def _answer_status(self, opcode: int, status: int) -> None:
        """Command Status for commands answered that way, Command Complete otherwise."""
        command_class = hci.HCI_Command.command_classes.get(opcode)
        if command_class is not None and issubclass(command_class, hci.HCI_AsyncCommand):
            self._send_hci_command_status(status, opcode)
        else:
            self._command_complete(opcode, bytes([status]))

    def _command_complete(self, opcode: int, return_parameters: bytes) -> None:
        self.send_hci_packet(
            raw_event(hci.HCI_COMMAND_COMPLETE_EVENT, struct.pack('<BH', 1, opcode) + return_parameters)
        )

    def _le_meta(self, subevent: int, parameters: bytes) -> hci.HCI_CustomPacket:
        return raw_event(hci.HCI_LE_META_EVENT, bytes([subevent]) + parameters)

    def _later(self, callback, *args) -> None:
        asyncio.get_running_loop().call_later(PROCEDURE_DELAY, callback, *args)

    # ======================================================================
    # Reset and power
    # ======================================================================
    def on_hci_reset_command(self, _command) -> hci.HCI_StatusReturnParameters:
        """Correction: Bumble's HCI_Reset resets nothing."""
        self.reset_state()
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def reset_state(self) -> None:
        """Back to the power-on state. Connections vanish without an LL_TERMINATE_IND:
        the peers find out when their supervision timeout expires; our own host is
        told nothing (it asked for the reset or was not there)."""
        self.le_legacy_advertiser.stop()
        self.le_legacy_advertiser = TimedLegacyAdvertiser(self)
        for advertising_set in self.advertising_sets.values():
            advertising_set.stop()
        self.advertising_sets.clear()
        self.le_scan_enable = False
        self.filter_duplicates = False
        self.le_scan_type = 0
        self.le_scan_interval = 0x10
        self.le_scan_window = 0x10
        self.le_scanning_filter_policy = 0
        self.le_scan_own_address_type = hci.Address.RANDOM_DEVICE_ADDRESS
        self.pending_le_connection = None
        for connection in list(self.le_connections.values()):
            self._vanish(connection)
        self.le_connections.clear()
        self.link_states.clear()
        self.event_mask = 0
        self.event_mask_page_2 = 0
        self.le_event_mask = 0
        self.random_address = hci.Address('00:00:00:00:00:00')
        self.filter_accept_list.clear()
        self.resolving_list.clear()
        self.le_address_resolution = False
        self.resolved_private_addresses.clear()
        self.default_phy = {'all_phys': 0, 'tx_phys': 0, 'rx_phys': 0}
        self.suggested_max_tx_octets = capabilities.MIN_DATA_OCTETS
        self.suggested_max_tx_time = capabilities.MIN_DATA_TIME
        self._reported.clear()
        self._p256_key = None
        self.advertising_group = None
        self.extended_reports = False
        if self._scan_timeout is not None:
            self._scan_timeout.cancel()
            self._scan_timeout = None

    def _vanish(self, connection: bumble_controller.Connection, reason: int = CONNECTION_TIMEOUT) -> None:
        """Drop a connection silently on our side; the peer times out."""
        found = self.link.peer_connection(self, connection) if isinstance(self.link, SimulatedLink) else None
        if found is not None:
            peer, peer_connection = found
            self._time_out_later(peer, peer_connection, reason, self._loss_delay(connection))

    def lose_link(self, connection: bumble_controller.Connection) -> None:
        """Both ends lose the connection (out of range): Disconnection Complete with
        Connection Timeout on each side, after the supervision timeout."""
        self._vanish(connection)
        self._time_out_later(self, connection, CONNECTION_TIMEOUT, self._loss_delay(connection))

    def _loss_delay(self, connection: bumble_controller.Connection) -> float:
        if self.link_loss_delay is not None:
            return self.link_loss_delay
        return self.link_states.get(connection.handle, LinkState()).supervision_timeout / 100.0

    @staticmethod
    def _time_out_later(controller, connection, reason: int, delay: float) -> None:
        def time_out() -> None:
            if controller.le_connections.get(connection.peer_address) is connection:
                controller.on_le_disconnected(connection, reason)

        asyncio.get_running_loop().call_later(delay, time_out)

    def on_le_disconnected(self, connection, reason: int) -> None:
        if self.le_connections.get(connection.peer_address) is not connection:
            return
        self.link_states.pop(connection.handle, None)
        super().on_le_disconnected(connection, reason)

    # ======================================================================
    # Disconnection
    # ======================================================================
    def on_hci_disconnect_command(self, command: hci.HCI_Disconnect_Command) -> None:
        """Corrections: an unknown handle gets Unknown Connection Identifier and an
        invalid reason Invalid HCI Command Parameters (Bumble says "pending" to
        both); the local Disconnection Complete carries 0x16 Connection Terminated By
        Local Host, while the peer receives the reason the host gave (Bumble reports
        the host's own reason back to it)."""
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None:
            self._send_hci_command_status(UNKNOWN_CONNECTION_IDENTIFIER, command.op_code)
            return
        if command.reason not in _DISCONNECT_REASONS:
            self._send_hci_command_status(INVALID_HCI_COMMAND_PARAMETERS, command.op_code)
            return
        self._send_hci_command_status(SUCCESS, command.op_code)
        connection.send_ll_control_pdu(ll.TerminateInd(command.reason))
        self._later(self.on_le_disconnected, connection, CONNECTION_TERMINATED_BY_LOCAL_HOST)

    # ======================================================================
    # Scanning and advertising reports
    # ======================================================================
    def on_hci_le_set_random_address_command(self, command) -> hci.HCI_StatusReturnParameters:
        """Correction: the random address cannot change while legacy advertising,
        scanning or initiating is enabled (Command Disallowed)."""
        if self.le_legacy_advertiser.enabled or self.le_scan_enable or self.pending_le_connection:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        return super().on_hci_le_set_random_address_command(command)

    def on_hci_le_set_advertising_parameters_command(self, command) -> hci.HCI_StatusReturnParameters:
        """Correction: parameters cannot change while advertising is enabled."""
        if self.le_legacy_advertiser.enabled:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        return super().on_hci_le_set_advertising_parameters_command(command)

    def on_hci_le_set_scan_enable_command(self, command) -> hci.HCI_StatusReturnParameters:
        """Correction: duplicate filtering restarts with every scan enable."""
        if command.le_scan_enable and not self.le_scan_enable:
            self._reported.clear()
        self.extended_reports = False
        return super().on_hci_le_set_scan_enable_command(command)

    # Extended scanning (variant.extended_scanning): LE 1M only, as the controller
    # has no coded PHY. Bumble keeps neither the scan type nor the interval of
    # LE Set Extended Scan Parameters, accepts it while scanning, and reports
    # legacy or extended by its feature bit rather than by the command used.
    def on_hci_le_set_extended_scan_parameters_command(self, command) -> hci.HCI_StatusReturnParameters:
        """7.8.64: Command Disallowed while scanning; a PHY other than LE 1M is
        Unsupported Feature or Parameter Value (0x11)."""
        if self.le_scan_enable:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        if command.scanning_phys != PHY_1M:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(UNSUPPORTED_FEATURE))
        self.le_scan_type = command.scan_types[0]
        self.le_scan_interval = command.scan_intervals[0]
        self.le_scan_window = command.scan_windows[0]
        self.le_scan_own_address_type = hci.AddressType(command.own_address_type)
        self.le_scanning_filter_policy = command.scanning_filter_policy
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_le_set_extended_scan_enable_command(self, command) -> hci.HCI_StatusReturnParameters:
        """7.8.65: reports in the extended format; a Duration ends the scan with
        LE Scan Timeout; periodic scanning (Period) is not modelled (0x11)."""
        if command.period:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(UNSUPPORTED_FEATURE))
        if command.enable and not self.le_scan_enable:
            self._reported.clear()
        if self._scan_timeout is not None:
            self._scan_timeout.cancel()
            self._scan_timeout = None
        self.le_scan_enable = bool(command.enable)
        self.filter_duplicates = bool(command.filter_duplicates)
        self.extended_reports = True
        if command.enable and command.duration:
            self._scan_timeout = asyncio.get_running_loop().call_later(command.duration * 0.01, self._scan_timed_out)
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def _scan_timed_out(self) -> None:
        self._scan_timeout = None
        self.le_scan_enable = False
        self.send_hci_packet(self._le_meta(SUBEVENT_LE_SCAN_TIMEOUT, b''))

    def on_advertising_pdu(self, pdu) -> None:
        """Corrections to Bumble's advertising reports:
        - a scan response report carries the advertiser's scan response data
          (Bumble repeats the advertising data), and only an active scan gets one;
        - reports follow the command that enabled the scan: legacy reports for
          LE Set Scan Enable, LE Extended Advertising Reports for LE Set Extended
          Scan Enable (Bumble goes by the feature bit);
        - duplicate filtering and the filter accept list policy are honoured;
        - an advertiser whose filter policy limits scan requests to its filter
          accept list answers only a scanner listed there (Bumble ignores the
          advertising filter policy);
        - the RSSI is the one configured for the advertiser."""
        if not isinstance(pdu, ll.AdvInd):
            return
        address = pdu.advertiser_address
        found = self.link.legacy_advertiser(address, pdu.data) if isinstance(self.link, SimulatedLink) else None
        advertiser_controller, advertiser = found if found else (None, None)
        rssi = getattr(advertiser_controller, 'rssi', -50)
        # LL Privacy: a private address the resolving list resolves is reported
        # as its identity (address type 2 or 3).
        identity = self.resolve(address)
        if self.le_scan_enable and (self.le_scanning_filter_policy in (0, 2) or (identity or address) in self.filter_accept_list):
            self._report(hci.HCI_LE_Advertising_Report_Event.EventType.ADV_IND, address, pdu.data, rssi, identity)
            scannable = advertiser is not None and advertiser.advertising_type in (
                hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_IND,
                hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_SCAN_IND,
            )
            if self.le_scan_type == 1 and scannable and _accepts(advertiser, advertiser_controller, self._scanner_address(), SCAN_REQUESTS):
                self._report(
                    hci.HCI_LE_Advertising_Report_Event.EventType.SCAN_RSP,
                    address,
                    bytes(advertiser.scan_response_data),
                    rssi,
                    identity,
                )
        pending = self.pending_le_connection
        if pending is not None:
            if pending.initiator_filter_policy == 1:
                wanted = address in self.filter_accept_list
            else:
                wanted = pending.peer_address == address
            if wanted:
                self.create_le_connection(address)

    def _report(self, event_type: int, address: hci.Address, data: bytes, rssi: int, identity: hci.Address | None = None) -> None:
        address_type = address.address_type
        if identity is not None:
            address, address_type = identity, identity.address_type + 2
        key = (str(address), int(event_type), bytes(data))
        if self.filter_duplicates:
            if key in self._reported:
                return
            self._reported.add(key)
        if self.extended_reports:
            self.send_hci_packet(self._le_meta(SUBEVENT_LE_EXTENDED_ADVERTISING_REPORT,
                                               _extended_report(event_type, address_type, address, data, rssi)))
            return
        report = hci.HCI_LE_Advertising_Report_Event.Report(
            event_type=event_type,
            address_type=address_type,
            address=address,
            data=bytes(data),
            rssi=rssi,
        )
        self.send_hci_packet(hci.HCI_LE_Advertising_Report_Event([report]))

    # ======================================================================
    # Advertising sets (advertising_sets.py)
    # ======================================================================
    def _advertising_set(self, handle: int) -> None:
        if handle not in self.advertising_sets:
            self.advertising_sets[handle] = advertising_sets_module.LegacyPduAdvertisingSet(controller=self, handle=handle)

    def on_hci_le_set_advertising_set_random_address_command(self, command):
        """Correction: a set exists once it has parameters; an address for any
        other is Unknown Advertising Identifier (7.8.52; Bumble makes the set)."""
        if command.advertising_handle not in self.advertising_sets:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.UNKNOWN_ADVERTISING_IDENTIFIER_ERROR)
        return super().on_hci_le_set_advertising_set_random_address_command(command)

    def on_hci_le_set_extended_advertising_parameters_command(self, command):
        """Corrections: sets that send legacy PDUs reach legacy scanners, and a
        controller has only so many sets (Memory Capacity Exceeded for one more,
        7.8.53; Bumble takes any number)."""
        if command.advertising_handle not in self.advertising_sets and not advertising_sets_module.room_for_one_more(self):
            return hci.HCI_LE_Set_Extended_Advertising_Parameters_ReturnParameters(
                status=hci.HCI_ErrorCode.MEMORY_CAPACITY_EXCEEDED_ERROR, selected_tx_power=0)
        self._advertising_set(command.advertising_handle)
        return super().on_hci_le_set_extended_advertising_parameters_command(command)

    def on_hci_le_read_number_of_supported_advertising_sets_command(self, _command):
        """Correction: the number of sets this controller was made with."""
        return hci.HCI_LE_Read_Number_Of_Supported_Advertising_Sets_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, num_supported_advertising_sets=self.advertising_set_count)

    # ======================================================================
    # Filter accept list (Bumble's commands are stubs)
    # ======================================================================
    def _accept_list_in_use(self) -> bool:
        pending = self.pending_le_connection
        return bool(
            (self.le_scan_enable and self.le_scanning_filter_policy in (1, 3))
            or (pending is not None and pending.initiator_filter_policy == 1)
            or (self.le_legacy_advertiser.enabled and self.le_legacy_advertiser.advertising_filter_policy)
        )

    def on_hci_le_read_filter_accept_list_size_command(self, _command):
        return hci.HCI_LE_Read_Filter_Accept_List_Size_ReturnParameters(
            hci.HCI_ErrorCode.SUCCESS, self.variant.accept_list_size
        )

    def on_hci_le_clear_filter_accept_list_command(self, _command):
        if self._accept_list_in_use():
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        self.filter_accept_list.clear()
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_le_add_device_to_filter_accept_list_command(self, command):
        if self._accept_list_in_use():
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        if command.address not in self.filter_accept_list:
            if len(self.filter_accept_list) >= self.variant.accept_list_size:
                return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(MEMORY_CAPACITY_EXCEEDED))
            self.filter_accept_list.append(command.address)
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_le_remove_device_from_filter_accept_list_command(self, command):
        if self._accept_list_in_use():
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        if command.address in self.filter_accept_list:
            self.filter_accept_list.remove(command.address)
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    # ======================================================================
    # Resolving list (LL Privacy; Bumble's commands are stubs)
    # ======================================================================
    def _resolving_list_in_use(self) -> bool:
        """Address resolution is on and the controller advertises, scans or
        initiates: the list and the resolution switch cannot change (7.8.38-44)."""
        return self.le_address_resolution and bool(
            self.le_legacy_advertiser.enabled or self.le_scan_enable or self.pending_le_connection
        )

    def on_hci_le_read_resolving_list_size_command(self, _command):
        return hci.HCI_LE_Read_Resolving_List_Size_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, resolving_list_size=self.variant.resolving_list_size
        )

    def on_hci_le_clear_resolving_list_command(self, _command):
        if self._resolving_list_in_use():
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        self.resolving_list.clear()
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_le_add_device_to_resolving_list_command(self, command):
        """A full list answers Memory Capacity Exceeded; an identity already listed,
        Invalid HCI Command Parameters."""
        if self._resolving_list_in_use():
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        identity = command.peer_identity_address
        if any(listed == identity for listed, _ in self.resolving_list):
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(INVALID_HCI_COMMAND_PARAMETERS))
        if len(self.resolving_list) >= self.variant.resolving_list_size:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(MEMORY_CAPACITY_EXCEEDED))
        self.resolving_list.append((identity, bytes(command.peer_irk)))
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_le_set_address_resolution_enable_command(self, command):
        if self.le_legacy_advertiser.enabled or self.le_scan_enable or self.pending_le_connection:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        if command.address_resolution_enable not in (0, 1):
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(INVALID_HCI_COMMAND_PARAMETERS))
        self.le_address_resolution = command.address_resolution_enable == 1
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def resolve(self, address: hci.Address) -> hci.Address | None:
        """The identity a resolvable private address belongs to, when address
        resolution is on and a resolving list entry's IRK resolves it."""
        if not self.le_address_resolution or address.address_type != hci.Address.RANDOM_DEVICE_ADDRESS:
            return None
        raw = bytes(address.address_bytes)
        if raw[5] >> 6 != 0b01:
            return None
        for identity, irk in self.resolving_list:
            if crypto.ah(irk, raw[3:6]) == raw[0:3]:
                return identity
        return None

    # ======================================================================
    # Connection establishment
    # ======================================================================
    def on_hci_le_create_connection_command(self, command) -> None:
        """Corrections: a connection to a device already connected is refused with
        ACL Connection Already Exists; a random own address that was never set is
        refused with Invalid HCI Command Parameters; the filter accept list policy
        works (Bumble ignores it and waits for the all-zero address)."""
        self._initiate(command, command.op_code)

    def on_hci_le_extended_create_connection_command(self, command) -> None:
        """7.8.66 (variant.extended_scanning), on LE 1M only: Initiating_PHYs other
        than LE 1M are Unsupported Feature or Parameter Value (0x11). Then as LE
        Create Connection, with the LE 1M parameters (Bumble uses the command's
        lists as single values)."""
        if command.initiating_phys != PHY_1M:
            self._send_hci_command_status(UNSUPPORTED_FEATURE, command.op_code)
            return
        pending = PendingConnection(
            peer_address=command.peer_address,
            initiator_filter_policy=command.initiator_filter_policy,
            own_address_type=command.own_address_type,
            connection_interval_max=command.connection_interval_maxs[0],
            max_latency=command.max_latencies[0],
            supervision_timeout=command.supervision_timeouts[0],
        )
        self._initiate(pending, command.op_code)

    def _initiate(self, pending, op_code: int) -> None:
        if self.pending_le_connection:
            self._send_hci_command_status(COMMAND_DISALLOWED, op_code)
            return
        if pending.initiator_filter_policy == 0 and pending.peer_address in self.le_connections:
            self._send_hci_command_status(ACL_CONNECTION_ALREADY_EXISTS, op_code)
            return
        if pending.own_address_type in (1, 3) and self.random_address == hci.Address('00:00:00:00:00:00'):
            self._send_hci_command_status(INVALID_HCI_COMMAND_PARAMETERS, op_code)
            return
        self.pending_le_connection = pending
        self._send_hci_command_status(SUCCESS, op_code)

    def on_hci_le_create_connection_cancel_command(self, _command) -> hci.HCI_StatusReturnParameters:
        """Correction: Bumble never completes the cancel. A real controller answers
        Command Complete, then LE Connection Complete with Unknown Connection
        Identifier (0x02); with nothing to cancel it answers Command Disallowed."""
        pending = self.pending_le_connection
        if pending is None:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode(COMMAND_DISALLOWED))
        self.pending_le_connection = None
        peer = pending.peer_address

        # After the Command Complete, which Bumble queues when this returns.
        asyncio.get_running_loop().call_soon(self._connection_failed, peer, UNKNOWN_CONNECTION_IDENTIFIER)
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def create_le_connection(self, peer_address: hci.Address) -> None:
        """Correction: connect to the advertiser actually found (Bumble uses the
        command's peer address even with the filter accept list policy)."""
        pending = self.pending_le_connection
        if pending is None or peer_address in self.le_connections:
            return
        self.pending_le_connection = None
        self_address = (
            self.public_address
            if pending.own_address_type in (hci.OwnAddressType.PUBLIC, hci.OwnAddressType.RESOLVABLE_OR_PUBLIC)
            else self.random_address
        )
        interval = pending.connection_interval_max
        if self._connect_ind_ignored(peer_address, self_address):
            # The advertiser does not answer: the central hears nothing in the
            # first six connection events and gives up (Core spec Vol 6, Part B,
            # 4.5.2). Bumble would report a connection to nobody instead.
            asyncio.get_running_loop().call_later(
                6 * interval * 0.00125, self._connection_failed, peer_address, CONNECTION_FAILED_TO_BE_ESTABLISHED
            )
            return
        self.send_advertising_pdu(
            ll.ConnectInd(
                initiator_address=self_address,
                advertiser_address=peer_address,
                interval=interval,
                latency=pending.max_latency,
                timeout=pending.supervision_timeout,
            )
        )
        self._open_connection(
            hci.Role.CENTRAL, self_address, peer_address, interval, pending.max_latency, pending.supervision_timeout
        )

    def _connect_ind_ignored(self, peer_address: hci.Address, self_address: hci.Address) -> bool:
        """True when the advertiser at `peer_address` ignores this initiator's
        CONNECT_IND: it still holds a connection with it (the central's side of it
        vanished, e.g. in a controller reset, and the peripheral has not timed out
        yet), or its advertising filter policy takes connection requests only from
        its filter accept list and the initiator is not on it (Bumble ignores the
        advertising filter policy)."""
        found = self.link.legacy_advertiser(peer_address) if isinstance(self.link, SimulatedLink) else None
        if found is None:
            return False
        controller, advertiser = found
        return self_address in controller.le_connections or not _accepts(advertiser, controller, self_address, CONNECT_REQUESTS)

    def _scanner_address(self) -> hci.Address:
        """The address this controller's scan requests carry."""
        if self.le_scan_own_address_type in (hci.OwnAddressType.RANDOM, hci.OwnAddressType.RESOLVABLE_OR_RANDOM):
            return self.random_address
        return self.public_address

    def _connection_failed(self, peer_address: hci.Address, status: int) -> None:
        """LE Connection Complete for a connection that did not come about."""
        self.send_hci_packet(
            hci.HCI_LE_Connection_Complete_Event(
                status=status,
                connection_handle=0,
                role=hci.Role.CENTRAL,
                peer_address_type=peer_address.address_type,
                peer_address=peer_address,
                connection_interval=0,
                peripheral_latency=0,
                supervision_timeout=0,
                central_clock_accuracy=0,
            )
        )

    def _open_connection(
        self, role: hci.Role, self_address: hci.Address, peer_address: hci.Address, interval: int, latency: int, timeout: int,
        identity: hci.Address | None = None,
    ) -> bumble_controller.Connection:
        """Record a new connection and tell the host (LE Connection Complete; with
        `identity`, the peer's private address was resolved: the host is told the
        identity, and host_interface.py adds the private address to the enhanced
        event)."""
        connection = bumble_controller.Connection(
            controller=self,
            handle=self.allocate_connection_handle(),
            role=role,
            self_address=self_address,
            peer_address=peer_address,
            link=self.link,
            transport=PhysicalTransport.LE,
            link_type=hci.HCI_Connection_Complete_Event.LinkType.ACL,
        )
        self.le_connections[peer_address] = connection
        self.link_states[connection.handle] = LinkState(interval=interval, latency=latency, supervision_timeout=timeout)
        if identity is not None:
            self.resolved_private_addresses[connection.handle] = peer_address
        else:
            self.resolved_private_addresses.pop(connection.handle, None)
        reported = identity or peer_address
        self.send_hci_packet(
            hci.HCI_LE_Connection_Complete_Event(
                status=SUCCESS,
                connection_handle=connection.handle,
                role=role,
                peer_address_type=reported.address_type,
                peer_address=reported,
                connection_interval=interval,
                peripheral_latency=latency,
                supervision_timeout=timeout,
                central_clock_accuracy=0,
            )
        )
        return connection

    def on_le_connect_ind(self, packet: ll.ConnectInd) -> None:
        """Correction: the peripheral reports the connection parameters the central
        chose (Bumble reports fixed placeholders), and only a connectable advertiser
        accepts a connection: legacy advertising, or an advertising set with
        connectable legacy PDUs, which then ends with LE Advertising Set Terminated
        (Bumble lets any set accept a connection and never says it ended)."""
        advertiser = self.le_legacy_advertiser
        connectable = advertiser.advertising_type in (
            hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_IND,
            hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_DIRECT_IND,
            hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_DIRECT_IND_LOW_DUTY,
        )
        advertising_set = None
        if not (advertiser.enabled and connectable and advertiser.address == packet.advertiser_address):
            advertising_set = next(
                (
                    s for s in self.advertising_sets.values()
                    if getattr(s, 'connectable', False) and s.address == packet.advertiser_address
                ),
                None,
            )
            if advertising_set is None:
                return
        peer_address = packet.initiator_address
        if peer_address in self.le_connections:
            return
        # LL Privacy: the accept list holds identities; a resolved initiator is
        # checked, and reported, as its identity.
        identity = self.resolve(peer_address)
        if not _accepts(advertising_set or advertiser, self, identity or peer_address, CONNECT_REQUESTS):
            return
        # Advertising ends when a connection is made (the host restarts it).
        (advertising_set or advertiser).stop()
        connection = self._open_connection(
            hci.Role.PERIPHERAL, packet.advertiser_address, peer_address, packet.interval, packet.latency, packet.timeout,
            identity,
        )
        if advertising_set is not None:
            self.send_hci_packet(
                hci.HCI_LE_Advertising_Set_Terminated_Event(
                    status=SUCCESS,
                    advertising_handle=advertising_set.handle,
                    connection_handle=connection.handle,
                    num_completed_extended_advertising_events=0,
                )
            )
        if self.autonomous_data_length:
            octets = self.autonomous_data_length
            self._later(self._update_data_length, connection, octets)

    def on_ll_control_pdu(self, sender_address, packet) -> None:
        if isinstance(packet, ll.ConnectionUpdateInd):
            connection = self.le_connections.get(sender_address)
            if connection is not None and connection.handle in self.link_states:
                state = self.link_states[connection.handle]
                state.interval, state.latency, state.supervision_timeout = (
                    packet.interval,
                    packet.latency,
                    packet.timeout,
                )
        super().on_ll_control_pdu(sender_address, packet)

    # ======================================================================
    # Remote version, RSSI
    # ======================================================================
    def _start_procedure(self, command):
        """Command Status for a link-layer procedure on command.connection_handle;
        returns (connection, peer controller or None), or None for an unknown handle."""
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None:
            self._send_hci_command_status(UNKNOWN_CONNECTION_IDENTIFIER, command.op_code)
            return None
        self._send_hci_command_status(SUCCESS, command.op_code)
        found = self.link.peer_connection(self, connection)
        return connection, (found[0] if found else None)

    def on_hci_read_remote_version_information_command(self, command) -> None:
        """Correction: Bumble does not implement the version exchange."""
        started = self._start_procedure(command)
        if started is None:
            return
        connection, peer = started

        def complete() -> None:
            if self.le_connections.get(connection.peer_address) is not connection:
                return
            self.send_hci_packet(
                hci.HCI_Read_Remote_Version_Information_Complete_Event(
                    status=SUCCESS,
                    connection_handle=connection.handle,
                    version=getattr(peer, 'lmp_version', hci.HCI_VERSION_BLUETOOTH_CORE_5_0),
                    manufacturer_name=getattr(peer, 'manufacturer_company_identifier', 0xFFFF),
                    subversion=getattr(peer, 'lmp_subversion', 0),
                )
            )

        self._later(complete)

    def on_hci_read_rssi_command(self, command):
        """Correction: Bumble has no Read RSSI."""
        connection = self.find_le_connection_by_handle(command.handle)
        if connection is None:
            return hci.HCI_Read_RSSI_ReturnParameters(
                status=hci.HCI_ErrorCode(UNKNOWN_CONNECTION_IDENTIFIER), handle=command.handle, rssi=0
            )
        found = self.link.peer_connection(self, connection)
        rssi = getattr(found[0], 'rssi', -50) if found else -127
        return hci.HCI_Read_RSSI_ReturnParameters(status=hci.HCI_ErrorCode.SUCCESS, handle=command.handle, rssi=rssi)

    def on_hci_read_encryption_key_size_command(self, command):
        """Correction: Bumble has no Read Encryption Key Size. Its links are
        encrypted with the full 16-octet key (the LTKs it compares are 16 bytes)."""
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None:
            return hci.HCI_Read_Encryption_Key_Size_ReturnParameters(
                status=hci.HCI_ErrorCode(UNKNOWN_CONNECTION_IDENTIFIER),
                connection_handle=command.connection_handle, key_size=0)
        return hci.HCI_Read_Encryption_Key_Size_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, connection_handle=command.connection_handle, key_size=16)

    # ======================================================================
    # PHY
    # ======================================================================
    def on_hci_le_read_phy_command(self, command):
        """Correction: report the PHY in use (Bumble always says 1M)."""
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None:
            return hci.HCI_LE_Read_PHY_ReturnParameters(
                status=hci.HCI_ErrorCode(UNKNOWN_CONNECTION_IDENTIFIER),
                connection_handle=command.connection_handle,
                tx_phy=hci.Phy.LE_1M,
                rx_phy=hci.Phy.LE_1M,
            )
        state = self.link_states.setdefault(connection.handle, LinkState())
        return hci.HCI_LE_Read_PHY_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS,
            connection_handle=connection.handle,
            tx_phy=hci.Phy(state.tx_phy),
            rx_phy=hci.Phy(state.rx_phy),
        )

    def on_hci_le_set_phy_command(self, command) -> None:
        """Correction: Bumble has no PHY update procedure. 2M is chosen when the
        host allows it and both controllers support it, otherwise 1M; the host
        always gets LE PHY Update Complete, the peer's host only on a change."""
        started = self._start_procedure(command)
        if started is None:
            return
        connection, peer = started
        peer_2m = bool(peer is not None and peer.le_features & hci.LeFeatureMask.LE_2M_PHY)

        def choose(no_preference: bool, phys: int) -> int:
            if peer_2m and (no_preference or phys & 0x02):
                return PHY_2M
            return PHY_1M

        tx = choose(bool(command.all_phys & 0x01), command.tx_phys)
        rx = choose(bool(command.all_phys & 0x02), command.rx_phys)
        self._later(self._apply_phy, connection, tx, rx, True)

    def _apply_phy(self, connection, tx: int, rx: int, initiator: bool) -> None:
        if self.le_connections.get(connection.peer_address) is not connection:
            return
        state = self.link_states.setdefault(connection.handle, LinkState())
        changed = (state.tx_phy, state.rx_phy) != (tx, rx)
        state.tx_phy, state.rx_phy = tx, rx
        if initiator or changed:
            self.send_hci_packet(
                hci.HCI_LE_PHY_Update_Complete_Event(
                    status=SUCCESS, connection_handle=connection.handle, tx_phy=tx, rx_phy=rx
                )
            )
        if initiator:
            found = self.link.peer_connection(self, connection)
            if found:
                peer, peer_connection = found
                peer._apply_phy(peer_connection, rx, tx, False)

    # ======================================================================
    # Data length
    # ======================================================================
    def on_hci_le_set_data_length_command(self, command):
        """Correction: Bumble accepts the command but never runs the data length
        update procedure nor reports LE Data Length Change."""
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None:
            status = UNKNOWN_CONNECTION_IDENTIFIER
        elif not (
            capabilities.MIN_DATA_OCTETS <= command.tx_octets <= capabilities.MAX_DATA_OCTETS
            and capabilities.MIN_DATA_TIME <= command.tx_time <= capabilities.MAX_DATA_TIME
        ):
            status = INVALID_HCI_COMMAND_PARAMETERS
        else:
            status = SUCCESS
            octets = min(command.tx_octets, capabilities.max_octets_for_time(command.tx_time))
            self._later(self._update_data_length, connection, octets)
        return hci.HCI_StatusAndConnectionHandleReturnParameters(
            status=hci.HCI_ErrorCode(status), connection_handle=command.connection_handle
        )

    def _update_data_length(self, connection, wanted_tx_octets: int) -> None:
        """LL_LENGTH_REQ / LL_LENGTH_RSP: each direction carries the minimum of what
        the sender wants to send and what the receiver can take."""
        if self.le_connections.get(connection.peer_address) is not connection:
            return
        found = self.link.peer_connection(self, connection)
        if found is None:
            return
        peer, peer_connection = found
        peer_wants = max(peer.suggested_max_tx_octets, capabilities.MIN_DATA_OCTETS)
        peer_wants = max(peer_wants, getattr(peer, 'autonomous_data_length', None) or 0)
        tx = min(wanted_tx_octets, peer.supported_max_rx_octets)
        rx = min(self.supported_max_rx_octets, peer_wants, peer.supported_max_tx_octets)
        self._set_data_length(connection, tx, rx)
        peer._set_data_length(peer_connection, rx, tx)

    def _set_data_length(self, connection, tx: int, rx: int) -> None:
        """LE Data Length Change goes to the host only when a value changed."""
        state = self.link_states.setdefault(connection.handle, LinkState())
        changed = (state.tx_octets, state.rx_octets) != (tx, rx)
        state.tx_octets, state.rx_octets = tx, rx
        if changed:
            self.send_hci_packet(
                hci.HCI_LE_Data_Length_Change_Event(
                    connection_handle=connection.handle,
                    max_tx_octets=tx,
                    max_tx_time=capabilities.data_time(tx),
                    max_rx_octets=rx,
                    max_rx_time=capabilities.data_time(rx),
                )
            )

    # ======================================================================
    # Security primitives
    # ======================================================================
    def on_hci_le_rand_command(self, _command):
        """Correction: Bumble's LE Rand can raise (randint upper bound is inclusive)
        and is not a cryptographic generator."""
        return hci.HCI_LE_Rand_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, random_number=secrets.token_bytes(8)
        )

    def _le_encrypt(self, command: hci.HCI_Command) -> None:
        """Correction: Bumble has no LE Encrypt. AES-128 of the plaintext with the
        key, both given least significant octet first (Core spec Vol 4, Part E, 7.8.22)."""
        parameters = command.parameters
        if len(parameters) != 32:
            self._command_complete(command.op_code, bytes([INVALID_HCI_COMMAND_PARAMETERS]))
            return
        encrypted = crypto.e(parameters[:16], parameters[16:32])
        self._command_complete(command.op_code, bytes([SUCCESS]) + encrypted)

    def _read_local_p256_public_key(self, command: hci.HCI_Command) -> None:
        """Correction: Bumble answers Success and never sends the key."""
        self._send_hci_command_status(SUCCESS, command.op_code)
        self._p256_key = crypto.EccKey.generate()
        key = self._p256_key
        self._later(
            lambda: self.send_hci_packet(
                self._le_meta(
                    SUBEVENT_LE_READ_LOCAL_P256_PUBLIC_KEY_COMPLETE,
                    bytes([SUCCESS]) + key.x[::-1] + key.y[::-1],
                )
            )
        )

    def _generate_dhkey(self, command: hci.HCI_Command) -> None:
        """Correction: Bumble has no LE Generate DHKey. An invalid remote key gives
        Invalid HCI Command Parameters and a DHKey of all ones."""
        parameters = command.parameters
        if len(parameters) != 64:
            self._send_hci_command_status(INVALID_HCI_COMMAND_PARAMETERS, command.op_code)
            return
        if self._p256_key is None:
            self._send_hci_command_status(COMMAND_DISALLOWED, command.op_code)
            return
        self._send_hci_command_status(SUCCESS, command.op_code)
        try:
            dhkey = self._p256_key.dh(parameters[:32][::-1], parameters[32:][::-1])[::-1]
            result = bytes([SUCCESS]) + dhkey
        except ValueError:
            result = bytes([INVALID_HCI_COMMAND_PARAMETERS]) + b'\xff' * 32
        self._later(lambda: self.send_hci_packet(self._le_meta(SUBEVENT_LE_GENERATE_DHKEY_COMPLETE, result)))

    # Commands Bumble has no class for: handled from their raw parameters.
    _raw_handlers = {
        hci.HCI_LE_ENCRYPT_COMMAND: _le_encrypt,
        hci.HCI_LE_READ_LOCAL_P_256_PUBLIC_KEY_COMMAND: _read_local_p256_public_key,
        hci.HCI_LE_GENERATE_DHKEY_COMMAND: _generate_dhkey,
    }

    # ======================================================================
    # Informational
    # ======================================================================
    def on_hci_read_local_supported_commands_command(self, _command):
        """Correction: list only what is implemented."""
        return hci.HCI_Read_Local_Supported_Commands_ReturnParameters(
            hci.HCI_ErrorCode.SUCCESS, supported_commands=capabilities.supported_commands_bitmap(self.supported_commands)
        )
