"""Event mask bookkeeping of a controller (Core spec Vol 4, Part E, 7.3.1, 7.3.69, 7.8.1).

Bumble's virtual controller stores the masks the host sets but never applies them:
every event reaches the host. A real controller only sends an event whose bit is set.
"""

from __future__ import annotations

# Defaults after power-on and after HCI_Reset.
DEFAULT_EVENT_MASK = 0x00001FFFFFFFFFFF
DEFAULT_EVENT_MASK_PAGE_2 = 0x0000000000000000
DEFAULT_LE_EVENT_MASK = 0x000000000000001F

EVENT_COMMAND_COMPLETE = 0x0E
EVENT_COMMAND_STATUS = 0x0F
EVENT_NUMBER_OF_COMPLETED_PACKETS = 0x13
EVENT_LE_META = 0x3E
EVENT_VENDOR = 0xFF

# Events a controller sends whatever the masks say.
_UNMASKABLE = {
    EVENT_COMMAND_COMPLETE,
    EVENT_COMMAND_STATUS,
    EVENT_NUMBER_OF_COMPLETED_PACKETS,
    EVENT_VENDOR,
}

# LE Meta Event is bit 61 of page 1.
_LE_META_BIT = 61


class EventMasks:
    """The three masks and the rule deciding whether an event may go to the host."""

    def __init__(self) -> None:
        self.event_mask = DEFAULT_EVENT_MASK
        self.event_mask_page_2 = DEFAULT_EVENT_MASK_PAGE_2
        self.le_event_mask = DEFAULT_LE_EVENT_MASK

    def reset(self) -> None:
        self.event_mask = DEFAULT_EVENT_MASK
        self.event_mask_page_2 = DEFAULT_EVENT_MASK_PAGE_2
        self.le_event_mask = DEFAULT_LE_EVENT_MASK

    def event_enabled(self, event_code: int) -> bool:
        """Page 1 covers event codes 0x01..0x40 (bit = code - 1), page 2 codes
        0x40..0x7F (bit = code - 0x40)."""
        if event_code in _UNMASKABLE:
            return True
        if 0x01 <= event_code <= 0x3F:
            return bool(self.event_mask >> (event_code - 1) & 1)
        if 0x40 <= event_code <= 0x7F:
            return bool(self.event_mask_page_2 >> (event_code - 0x40) & 1)
        # Codes outside both pages (none are defined) are let through.
        return True

    def le_subevent_enabled(self, subevent_code: int) -> bool:
        if not self.event_mask >> _LE_META_BIT & 1:
            return False
        if subevent_code == 0 or subevent_code > 64:
            return True
        return bool(self.le_event_mask >> (subevent_code - 1) & 1)

    def allows(self, event_packet: bytes) -> bool:
        """event_packet: H4 event (0x04, code, length, parameters...)."""
        if len(event_packet) < 3:
            return True
        code = event_packet[1]
        if code == EVENT_LE_META:
            if len(event_packet) < 4:
                return True
            return self.le_subevent_enabled(event_packet[3])
        return self.event_enabled(code)
