"""Advertising sets that use legacy PDUs, as a real controller sends them.

Bumble 0.0.236 sends every advertising set as an extended PDU (AUX chain) with no
properties, so a scanner that uses the legacy commands, an iPhone's Settings
scan among them, never sees a set whose properties say "use legacy advertising
PDUs" (Core spec Vol 4, Part E, 7.8.53, bit 4): on air such a set is ADV_IND,
ADV_SCAN_IND... exactly like legacy advertising. It also lets any set accept a
connection and never reports LE Advertising Set Terminated afterwards.

`LegacyPduAdvertisingSet` sends ADV_IND for a connectable and scannable set that
uses legacy PDUs (the only legacy PDU the simulated radio carries), every
interval × 0.625 ms plus the 0–10 ms advDelay; the controller answers scan
requests with its scan response data and, when a central connects, ends the set
with LE Advertising Set Terminated (controller.py). A set with extended PDUs is
still sent Bumble's way, which legacy scanners rightly ignore.

These commands are only supported by a controller created with
`advertising_sets=N` for N ≥ 1 (`--advertising-sets N`; it then claims the LE
Extended Advertising feature and has N sets: LE Read Number of Supported
Advertising Sets answers N, and parameters for one more set are refused with
Memory Capacity Exceeded); extended scanning and the extended create
connection stay unknown there unless the controller variant has
`extended_scanning` (`--extended-scanning`). N = 1 is a controller with one set, as many
have; 0 (the default) one with legacy advertising only.

Several sets may advertise from the same address (a head unit gives every set
its identity): a scan request answers the ADV_IND just heard, so the scan
response is that of the set whose advertising data it was
(`SimulatedLink.legacy_advertiser`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random

from bumble import controller as bumble_controller
from bumble import hci, ll

# Advertising_Event_Properties bits (Core spec Vol 4, Part E, 7.8.53).
CONNECTABLE = 0x01
SCANNABLE = 0x02
DIRECTED = 0x04
LEGACY = 0x10
ADV_IND_PROPERTIES = LEGACY | SCANNABLE | CONNECTABLE

_AdvertisingType = hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType
# Advertising_Handle is 0x00..0xEF (7.8.53).
MAX_SETS = 0xF0

COMMANDS: frozenset[int] = frozenset(
    {
        hci.HCI_LE_SET_ADVERTISING_SET_RANDOM_ADDRESS_COMMAND,
        hci.HCI_LE_SET_EXTENDED_ADVERTISING_PARAMETERS_COMMAND,
        hci.HCI_LE_SET_EXTENDED_ADVERTISING_DATA_COMMAND,
        hci.HCI_LE_SET_EXTENDED_SCAN_RESPONSE_DATA_COMMAND,
        hci.HCI_LE_SET_EXTENDED_ADVERTISING_ENABLE_COMMAND,
        hci.HCI_LE_READ_MAXIMUM_ADVERTISING_DATA_LENGTH_COMMAND,
        hci.HCI_LE_READ_NUMBER_OF_SUPPORTED_ADVERTISING_SETS_COMMAND,
        hci.HCI_LE_REMOVE_ADVERTISING_SET_COMMAND,
        hci.HCI_LE_CLEAR_ADVERTISING_SETS_COMMAND,
    }
)


@dataclasses.dataclass
class LegacyPduAdvertisingSet(bumble_controller.AdvertisingSet):
    @property
    def properties(self) -> int:
        return int(self.parameters.advertising_event_properties) if self.parameters else 0

    @property
    def advertising_filter_policy(self) -> int:
        return int(self.parameters.advertising_filter_policy) if self.parameters else 0

    @property
    def uses_legacy_pdus(self) -> bool:
        return bool(self.properties & LEGACY)

    @property
    def advertising_type(self) -> int | None:
        """The legacy advertising type this set is on air (what a scanner sees), or
        None for a set with extended PDUs."""
        if not self.uses_legacy_pdus:
            return None
        if self.properties & DIRECTED:
            return _AdvertisingType.ADV_DIRECT_IND
        if self.properties & CONNECTABLE:
            return _AdvertisingType.ADV_IND
        if self.properties & SCANNABLE:
            return _AdvertisingType.ADV_SCAN_IND
        return _AdvertisingType.ADV_NONCONN_IND

    @property
    def connectable(self) -> bool:
        return self.enabled and self.advertising_type == _AdvertisingType.ADV_IND

    def _on_extended_advertising_timer_fired(self) -> None:
        if not self.enabled:
            return
        if not self.uses_legacy_pdus:
            super()._on_extended_advertising_timer_fired()
            return
        if self.advertising_type == _AdvertisingType.ADV_IND and self.address is not None:
            self.controller.send_advertising_pdu(ll.AdvInd(advertiser_address=self.address, data=bytes(self.data)))
        interval = max(self.parameters.primary_advertising_interval_min, 0x20) * 0.000625
        self.timer_handle = asyncio.get_running_loop().call_later(
            interval + random.uniform(0, 0.010), self._on_extended_advertising_timer_fired
        )


def room_for_one_more(controller) -> bool:
    """Whether `controller` can make another advertising set."""
    return len(controller.advertising_sets) < getattr(controller, 'advertising_set_count', MAX_SETS)
