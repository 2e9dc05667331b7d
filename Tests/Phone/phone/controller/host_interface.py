"""The controller's side of the HCI transport, as a real chip presents it.

Everything here works on raw H4 packets (type byte + HCI packet) between the TCP
transport and the Bumble controller, and corrects what Bumble's virtual controller
does differently from a real one (see README.md, "Controller corrections"):

- event masks: an event or LE subevent the host did not enable never reaches it
  (Bumble sends everything);
- ACL data towards the host is fragmented: a real LE controller hands every received
  link-layer PDU to the host as it comes, so the host sees 27-byte fragments on a
  link without Data Length Extension (Bumble delivers whole L2CAP PDUs);
- ACL data from the host is checked against the buffer size and buffer count the
  controller reported, and buffers are returned with Number Of Completed Packets
  events some time after the packet went out, batched like a controller does once
  per connection event (Bumble answers every packet at once and accepts anything);
- a host that asks for LE Enhanced Connection Complete or Encryption Change v2 gets
  those events instead of the legacy ones, as the specification requires;
- host mistakes a real controller would not tolerate (too long or too many ACL
  packets, commands without a free command credit, data for an unknown handle) are
  reported through on_violation, so tests can fail on them.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Callable

from .event_masks import (
    EVENT_COMMAND_COMPLETE,
    EVENT_COMMAND_STATUS,
    EVENT_LE_META,
    EVENT_NUMBER_OF_COMPLETED_PACKETS,
    EventMasks,
)

logger = logging.getLogger(__name__)

H4_COMMAND = 0x01
H4_ACL = 0x02
H4_EVENT = 0x04

OPCODE_SET_EVENT_MASK = 0x0C01
OPCODE_RESET = 0x0C03
OPCODE_SET_EVENT_MASK_PAGE_2 = 0x0C63
OPCODE_LE_SET_EVENT_MASK = 0x2001

EVENT_DISCONNECTION_COMPLETE = 0x05
EVENT_ENCRYPTION_CHANGE = 0x08
EVENT_ENCRYPTION_CHANGE_V2 = 0x59

SUBEVENT_LE_CONNECTION_COMPLETE = 0x01
SUBEVENT_LE_DATA_LENGTH_CHANGE = 0x07
SUBEVENT_LE_ENHANCED_CONNECTION_COMPLETE = 0x0A
SUBEVENT_LE_ENHANCED_CONNECTION_COMPLETE_V2 = 0x29

PB_FIRST_NON_FLUSHABLE = 0b00
PB_CONTINUATION = 0b01
PB_FIRST_FLUSHABLE = 0b10

# Without Data Length Extension an LE link-layer PDU carries at most 27 octets.
DEFAULT_LL_OCTETS = 27


def event_packet(code: int, parameters: bytes) -> bytes:
    return bytes([H4_EVENT, code, len(parameters)]) + parameters


class HostInterface:
    """Corrections between the H4 transport (the host) and a Bumble controller.

    The controller sends to this object (it is the controller's `host` sink); the
    transport calls from_host() with every packet it reads and receives packets for
    the host through the `send` callable given to attach().
    """

    def __init__(
        self,
        controller,
        *,
        acl_size: int = 27,
        acl_buffers: int = 8,
        completion_delay: float = 0.010,
        on_violation: Callable[[str], None] | None = None,
    ) -> None:
        self.controller = controller
        self.acl_size = acl_size
        self.acl_buffers = acl_buffers
        self.completion_delay = completion_delay
        self.on_violation = on_violation
        self.masks = EventMasks()
        self._send: Callable[[bytes], None] | None = None
        # Mask commands take effect when their Command Complete reports success.
        self._pending_masks: dict[int, int] = {}
        self._command_credits = 1
        # Per connection handle: octets per LL PDU towards us (rx), packets in flight.
        self._rx_octets: dict[int, int] = {}
        self._in_flight: dict[int, int] = {}
        self._closed_handles: set[int] = set()
        self._completion_timer: asyncio.TimerHandle | None = None
        controller.host = self

    # ------------------------------------------------------------------ transport
    def attach(self, send: Callable[[bytes], None]) -> None:
        """A host connected: from its point of view the controller just powered up."""
        self._reset_state()
        self._send = send

    def detach(self) -> None:
        self._send = None
        self._reset_state()

    @property
    def attached(self) -> bool:
        return self._send is not None

    def _reset_state(self) -> None:
        self.masks.reset()
        self._pending_masks.clear()
        self._command_credits = 1
        self._rx_octets.clear()
        self._closed_handles.clear()
        self._flush_buffers()

    def _flush_buffers(self) -> None:
        self._in_flight.clear()
        if self._completion_timer is not None:
            self._completion_timer.cancel()
            self._completion_timer = None

    def _violation(self, detail: str) -> None:
        logger.error('host violated the HCI contract: %s', detail)
        if self.on_violation:
            self.on_violation(detail)

    # ------------------------------------------------------------- host → controller
    def from_host(self, packet: bytes) -> None:
        packet_type = packet[0]
        if packet_type == H4_COMMAND:
            self._on_host_command(packet)
        elif packet_type == H4_ACL:
            if not self._accept_host_acl(packet):
                return
        else:
            # SCO and ISO are not supported by this LE-only controller.
            self._violation(f'packet type 0x{packet_type:02X} not supported by this controller')
            return
        try:
            self.controller.on_packet(packet)
        except Exception as error:  # noqa: BLE001 - e.g. an L2CAP header Bumble cannot parse
            # A real controller would carry the bytes to the peer; the simulated one
            # needs a well-formed L2CAP frame and says so instead of dying.
            self._violation(f'packet the simulated link cannot carry ({error!r}): {packet[:16].hex()}')

    def _on_host_command(self, packet: bytes) -> None:
        opcode = packet[1] | packet[2] << 8
        parameters = packet[4:]
        if self._command_credits <= 0:
            self._violation(
                f'command 0x{opcode:04X} sent while the controller allowed no more commands'
            )
        self._command_credits -= 1
        if opcode in (OPCODE_SET_EVENT_MASK, OPCODE_SET_EVENT_MASK_PAGE_2, OPCODE_LE_SET_EVENT_MASK):
            if len(parameters) >= 8:
                self._pending_masks[opcode] = int.from_bytes(parameters[:8], 'little')
        elif opcode == OPCODE_RESET:
            # The controller drops whatever sits in its buffers; masks go back to
            # their defaults when the reset completes.
            self._flush_buffers()
            self._rx_octets.clear()
            self._closed_handles.clear()

    def _accept_host_acl(self, packet: bytes) -> bool:
        if len(packet) < 5:
            self._violation('ACL packet shorter than its header')
            return False
        handle_and_flags, length = struct.unpack_from('<HH', packet, 1)
        handle = handle_and_flags & 0x0FFF
        pb_flag = (handle_and_flags >> 12) & 0b11
        bc_flag = (handle_and_flags >> 14) & 0b11
        if handle not in self._rx_octets:
            if handle in self._closed_handles:
                # Raced with a disconnection: the controller silently discards it.
                logger.debug('ACL data for closed handle 0x%03X dropped', handle)
            else:
                self._violation(f'ACL data for unknown connection handle 0x{handle:03X}')
            return False
        if pb_flag not in (PB_FIRST_NON_FLUSHABLE, PB_CONTINUATION, PB_FIRST_FLUSHABLE):
            self._violation(f'ACL packet with reserved packet boundary flag {pb_flag:#04b}')
            return False
        if bc_flag != 0:
            self._violation(f'ACL packet with broadcast flag {bc_flag:#04b} on an LE link')
            return False
        if length > self.acl_size:
            self._violation(
                f'ACL packet of {length} bytes exceeds the LE ACL buffer size {self.acl_size}'
            )
            return False
        if sum(self._in_flight.values()) >= self.acl_buffers:
            self._violation(
                f'ACL packet sent with all {self.acl_buffers} controller buffers in use'
            )
            return False
        self._in_flight[handle] = self._in_flight.get(handle, 0) + 1
        if self._completion_timer is None:
            self._completion_timer = asyncio.get_running_loop().call_later(
                self.completion_delay, self._report_completed_packets
            )
        return True

    def _report_completed_packets(self) -> None:
        """One connection event later everything queued has gone out: return the
        buffers in one Number Of Completed Packets event."""
        self._completion_timer = None
        completed = [(handle, count) for handle, count in self._in_flight.items() if count]
        self._in_flight.clear()
        if not completed:
            return
        parameters = bytes([len(completed)])
        for handle, count in completed:
            parameters += struct.pack('<HH', handle, count)
        self._to_host(event_packet(EVENT_NUMBER_OF_COMPLETED_PACKETS, parameters))

    # ------------------------------------------------------------- controller → host
    def on_packet(self, packet: bytes) -> None:
        """TransportSink interface: a packet from the Bumble controller."""
        packet_type = packet[0]
        if packet_type == H4_ACL:
            self._fragment_to_host(packet)
        elif packet_type == H4_EVENT:
            self._event_to_host(packet)
        else:
            self._to_host(packet)

    def _fragment_to_host(self, packet: bytes) -> None:
        handle_and_flags, _length = struct.unpack_from('<HH', packet, 1)
        handle = handle_and_flags & 0x0FFF
        data = packet[5:]
        size = min(self.acl_size, self._rx_octets.get(handle, DEFAULT_LL_OCTETS))
        offset = 0
        first = True
        while first or offset < len(data):
            chunk = data[offset : offset + size]
            pb_flag = PB_FIRST_FLUSHABLE if first else PB_CONTINUATION
            header = struct.pack('<BHH', H4_ACL, handle | pb_flag << 12, len(chunk))
            self._to_host(header + chunk)
            offset += size
            first = False

    def _event_to_host(self, packet: bytes) -> None:
        code = packet[1]
        parameters = packet[3:]
        if code == EVENT_NUMBER_OF_COMPLETED_PACKETS:
            # Bumble answers each packet at once; this layer reports instead.
            return
        if code in (EVENT_COMMAND_COMPLETE, EVENT_COMMAND_STATUS):
            self._on_command_answer(code, parameters)
        elif code == EVENT_DISCONNECTION_COMPLETE and len(parameters) >= 3:
            if parameters[0] == 0:
                handle = struct.unpack_from('<H', parameters, 1)[0] & 0x0FFF
                self._forget_handle(handle)
        elif code == EVENT_ENCRYPTION_CHANGE:
            packet = self._encryption_change_version(parameters) or packet
        elif code == EVENT_LE_META and parameters:
            packet = self._on_le_meta(parameters) or packet
        if self.masks.allows(packet):
            self._to_host(packet)

    def _on_command_answer(self, code: int, parameters: bytes) -> None:
        if code == EVENT_COMMAND_COMPLETE and len(parameters) >= 4:
            credits, opcode, status = parameters[0], parameters[1] | parameters[2] << 8, parameters[3]
        elif code == EVENT_COMMAND_STATUS and len(parameters) >= 4:
            status, credits, opcode = parameters[0], parameters[1], parameters[2] | parameters[3] << 8
        else:
            return
        self._command_credits = credits
        if code != EVENT_COMMAND_COMPLETE:
            return
        mask = self._pending_masks.pop(opcode, None)
        if status != 0:
            return
        if opcode == OPCODE_RESET:
            self.masks.reset()
            self._pending_masks.clear()
        elif mask is not None:
            if opcode == OPCODE_SET_EVENT_MASK:
                self.masks.event_mask = mask
            elif opcode == OPCODE_SET_EVENT_MASK_PAGE_2:
                self.masks.event_mask_page_2 = mask
            else:
                self.masks.le_event_mask = mask

    def _forget_handle(self, handle: int) -> None:
        # After Disconnection Complete the host counts the handle's buffers as free.
        self._rx_octets.pop(handle, None)
        self._in_flight.pop(handle, None)
        self._closed_handles.add(handle)

    def _encryption_change_version(self, parameters: bytes) -> bytes | None:
        """Encryption Change v2 (0x59) replaces v1 when the host enabled it."""
        if not self.masks.event_enabled(EVENT_ENCRYPTION_CHANGE_V2) or len(parameters) < 4:
            return None
        key_size = 16 if parameters[3] else 0
        return event_packet(EVENT_ENCRYPTION_CHANGE_V2, parameters[:4] + bytes([key_size]))

    def _on_le_meta(self, parameters: bytes) -> bytes | None:
        subevent = parameters[0]
        if subevent == SUBEVENT_LE_CONNECTION_COMPLETE and len(parameters) >= 19:
            if parameters[1] == 0:
                handle = struct.unpack_from('<H', parameters, 2)[0] & 0x0FFF
                self._rx_octets[handle] = DEFAULT_LL_OCTETS
                self._in_flight.pop(handle, None)
                self._closed_handles.discard(handle)
            return self._connection_complete_version(parameters)
        if subevent == SUBEVENT_LE_DATA_LENGTH_CHANGE and len(parameters) >= 11:
            handle, _tx_octets, _tx_time, rx_octets, _rx_time = struct.unpack_from(
                '<HHHHH', parameters, 1
            )
            if (handle & 0x0FFF) in self._rx_octets:
                self._rx_octets[handle & 0x0FFF] = rx_octets
        return None

    def _connection_complete_version(self, parameters: bytes) -> bytes | None:
        """A host that enabled LE Enhanced Connection Complete (v2 or v1) gets it
        instead of LE Connection Complete (Core spec Vol 4, Part E, 7.7.65.10)."""
        v2 = self.masks.le_subevent_enabled(SUBEVENT_LE_ENHANCED_CONNECTION_COMPLETE_V2)
        v1 = self.masks.le_subevent_enabled(SUBEVENT_LE_ENHANCED_CONNECTION_COMPLETE)
        if not (v1 or v2):
            return None
        # status(1) handle(2) role(1) peer type(1) peer address(6) | interval(2)
        # latency(2) timeout(2) clock accuracy(1)
        head = parameters[1:12]
        tail = parameters[12:19]
        no_rpa = bytes(6)
        # A peer the controller resolved (LL Privacy): its identity type (2 or 3)
        # and the private address it used on air.
        handle = struct.unpack_from('<H', parameters, 2)[0] & 0x0FFF
        resolved = getattr(self.controller, 'resolved_private_addresses', {}).get(handle)
        peer_rpa = no_rpa
        if parameters[1] == 0 and resolved is not None:
            head = head[:4] + bytes([head[4] | 0x02]) + head[5:]
            peer_rpa = bytes(resolved.address_bytes)
        body = head + no_rpa + peer_rpa + tail
        if v2:
            # No advertising set and no periodic sync created this connection.
            body += bytes([0xFF]) + struct.pack('<H', 0xFFFF)
            return event_packet(EVENT_LE_META, bytes([SUBEVENT_LE_ENHANCED_CONNECTION_COMPLETE_V2]) + body)
        return event_packet(EVENT_LE_META, bytes([SUBEVENT_LE_ENHANCED_CONNECTION_COMPLETE]) + body)

    def _to_host(self, packet: bytes) -> None:
        if self._send is not None:
            self._send(packet)
