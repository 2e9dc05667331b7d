"""What the simulated controllers claim to support, and nothing more.

Bumble's controller lists commands it only stubs (resolving list, extended
advertising in the legacy-scanning case, host flow control) and feature bits whose
procedures it does not model. A host that trusts those claims is tested against
behaviour no chip has. The simulated controller is an LE-only Bluetooth 5.0 chip:
every command below has a real implementation (Bumble's or ours), every other
opcode is answered "Unknown HCI Command", and Read Local Supported Commands is
computed from this list.
"""

from __future__ import annotations

import dataclasses

from bumble import hci

from . import broadcom

SUPPORTED_COMMANDS: frozenset[int] = frozenset(
    {
        # Link control
        hci.HCI_DISCONNECT_COMMAND,
        hci.HCI_READ_REMOTE_VERSION_INFORMATION_COMMAND,
        # Controller and baseband
        hci.HCI_SET_EVENT_MASK_COMMAND,
        hci.HCI_RESET_COMMAND,
        hci.HCI_SET_EVENT_MASK_PAGE_2_COMMAND,
        hci.HCI_WRITE_AUTHENTICATED_PAYLOAD_TIMEOUT_COMMAND,
        # Informational
        hci.HCI_READ_LOCAL_VERSION_INFORMATION_COMMAND,
        hci.HCI_READ_LOCAL_SUPPORTED_COMMANDS_COMMAND,
        hci.HCI_READ_LOCAL_SUPPORTED_FEATURES_COMMAND,
        hci.HCI_READ_BUFFER_SIZE_COMMAND,
        hci.HCI_READ_BD_ADDR_COMMAND,
        # Status
        hci.HCI_READ_RSSI_COMMAND,
        hci.HCI_READ_ENCRYPTION_KEY_SIZE_COMMAND,
        # LE controller
        hci.HCI_LE_SET_EVENT_MASK_COMMAND,
        hci.HCI_LE_READ_BUFFER_SIZE_COMMAND,
        hci.HCI_LE_READ_LOCAL_SUPPORTED_FEATURES_COMMAND,
        hci.HCI_LE_SET_RANDOM_ADDRESS_COMMAND,
        hci.HCI_LE_SET_ADVERTISING_PARAMETERS_COMMAND,
        hci.HCI_LE_READ_ADVERTISING_PHYSICAL_CHANNEL_TX_POWER_COMMAND,
        hci.HCI_LE_SET_ADVERTISING_DATA_COMMAND,
        hci.HCI_LE_SET_SCAN_RESPONSE_DATA_COMMAND,
        hci.HCI_LE_SET_ADVERTISING_ENABLE_COMMAND,
        hci.HCI_LE_SET_SCAN_PARAMETERS_COMMAND,
        hci.HCI_LE_SET_SCAN_ENABLE_COMMAND,
        hci.HCI_LE_CREATE_CONNECTION_COMMAND,
        hci.HCI_LE_CREATE_CONNECTION_CANCEL_COMMAND,
        hci.HCI_LE_READ_FILTER_ACCEPT_LIST_SIZE_COMMAND,
        hci.HCI_LE_CLEAR_FILTER_ACCEPT_LIST_COMMAND,
        hci.HCI_LE_ADD_DEVICE_TO_FILTER_ACCEPT_LIST_COMMAND,
        hci.HCI_LE_REMOVE_DEVICE_FROM_FILTER_ACCEPT_LIST_COMMAND,
        hci.HCI_LE_CONNECTION_UPDATE_COMMAND,
        hci.HCI_LE_READ_REMOTE_FEATURES_COMMAND,
        hci.HCI_LE_ENCRYPT_COMMAND,
        hci.HCI_LE_RAND_COMMAND,
        hci.HCI_LE_ENABLE_ENCRYPTION_COMMAND,
        hci.HCI_LE_LONG_TERM_KEY_REQUEST_REPLY_COMMAND,
        hci.HCI_LE_LONG_TERM_KEY_REQUEST_NEGATIVE_REPLY_COMMAND,
        hci.HCI_LE_READ_SUPPORTED_STATES_COMMAND,
        hci.HCI_LE_SET_DATA_LENGTH_COMMAND,
        hci.HCI_LE_READ_SUGGESTED_DEFAULT_DATA_LENGTH_COMMAND,
        hci.HCI_LE_WRITE_SUGGESTED_DEFAULT_DATA_LENGTH_COMMAND,
        hci.HCI_LE_READ_LOCAL_P_256_PUBLIC_KEY_COMMAND,
        hci.HCI_LE_GENERATE_DHKEY_COMMAND,
        hci.HCI_LE_READ_MAXIMUM_DATA_LENGTH_COMMAND,
        hci.HCI_LE_READ_PHY_COMMAND,
        hci.HCI_LE_SET_DEFAULT_PHY_COMMAND,
        hci.HCI_LE_SET_PHY_COMMAND,
    }
)

# Bumble's default list minus what is not modelled: extended and periodic
# advertising (a legacy-scanning host must never get extended reports), LL privacy
# (no resolving list), the connection parameters request procedure and the coded PHY.
LE_FEATURES: hci.LeFeatureMask = (
    hci.LeFeatureMask.LE_ENCRYPTION
    | hci.LeFeatureMask.EXTENDED_REJECT_INDICATION
    | hci.LeFeatureMask.PERIPHERAL_INITIATED_FEATURE_EXCHANGE
    | hci.LeFeatureMask.LE_PING
    | hci.LeFeatureMask.LE_DATA_PACKET_LENGTH_EXTENSION
    | hci.LeFeatureMask.LE_2M_PHY
    | hci.LeFeatureMask.CHANNEL_SELECTION_ALGORITHM_2
)

# LE Data Length Extension limits (Core spec Vol 6, Part B, 4.5.10).
MAX_DATA_OCTETS = 251
MIN_DATA_OCTETS = 27
MIN_DATA_TIME = 0x0148
MAX_DATA_TIME = 0x4290

# Filter accept list and resolving list capacity of a small controller.
FILTER_ACCEPT_LIST_SIZE = 8
RESOLVING_LIST_SIZE = 8

# LL Privacy: the resolving list and address resolution (Core spec Vol 6, Part B,
# 6.9, Vol 4, Part E, 7.8.38-44), implemented in controller.py.
RESOLVING_LIST_COMMANDS: frozenset[int] = frozenset(
    {
        hci.HCI_LE_ADD_DEVICE_TO_RESOLVING_LIST_COMMAND,
        hci.HCI_LE_CLEAR_RESOLVING_LIST_COMMAND,
        hci.HCI_LE_READ_RESOLVING_LIST_SIZE_COMMAND,
        hci.HCI_LE_SET_ADDRESS_RESOLUTION_ENABLE_COMMAND,
    }
)

# Extended scanning and initiating (Core spec Vol 4, Part E, 7.8.64-66) on LE 1M,
# implemented in controller.py (Bumble's keep neither scan type nor interval and
# never report in the extended format the host asked for).
EXTENDED_SCANNING_COMMANDS: frozenset[int] = frozenset(
    {
        hci.HCI_LE_SET_EXTENDED_SCAN_PARAMETERS_COMMAND,
        hci.HCI_LE_SET_EXTENDED_SCAN_ENABLE_COMMAND,
        hci.HCI_LE_EXTENDED_CREATE_CONNECTION_COMMAND,
    }
)

# Core spec Vol 4, Part E, 3.1.1: once the host has used one group since HCI_Reset,
# a controller may answer any command of the other with Command Disallowed.
# Legacy: LE Set Advertising Parameters .. LE Create Connection (0x2006-0x200D,
# LE Read Advertising Physical Channel Tx Power included). Extended: LE Set
# Advertising Set Random Address .. LE Read Periodic Advertiser List Size
# (0x2035-0x204A): the set commands, LE Read Maximum Advertising Data Length, LE
# Read Number of Supported Advertising Sets, periodic advertising and sync,
# extended scanning and LE Extended Create Connection. LE Create Connection Cancel
# and LE Set Random Address belong to neither.
LEGACY_ADVERTISING_GROUP: frozenset[int] = frozenset(range(0x2006, 0x200E))
EXTENDED_ADVERTISING_GROUP: frozenset[int] = frozenset(range(0x2035, 0x204B))


def advertising_group(opcode: int) -> str | None:
    """'legacy', 'extended', or None for a command of neither group (3.1.1)."""
    if opcode in LEGACY_ADVERTISING_GROUP:
        return 'legacy'
    if opcode in EXTENDED_ADVERTISING_GROUP:
        return 'extended'
    return None


@dataclasses.dataclass(frozen=True)
class ControllerVariant:
    """Where real LE controllers differ, as the head unit's controller is simulated.

    The default is the controller the simulator always had: Read Encryption Key
    Size (which Bumble's own controller lacks), no LL Privacy, lists of 8."""

    # Read Encryption Key Size (Core spec Vol 4, Part E, 7.5.7).
    key_size_command: bool = True
    # LL Privacy: a working resolving list, LE Read Resolving List Size, the feature bit.
    ll_privacy: bool = False
    accept_list_size: int = FILTER_ACCEPT_LIST_SIZE
    resolving_list_size: int = RESOLVING_LIST_SIZE
    # LE Set Extended Scan Parameters / Enable and LE Extended Create Connection
    # (and the LE Extended Advertising feature bit they come with).
    extended_scanning: bool = False
    # Refuse legacy and extended advertising, scanning and initiating commands
    # mixed (3.1.1) with Command Disallowed until HCI_Reset, as real chips do.
    no_mixing: bool = False
    # A Raspberry Pi's onboard Broadcom chip (broadcom.CHIPS: 'BCM43430A1',
    # ...): its vendor bring-up commands and LMP subversion, Read Local Name,
    # which btbcm reads, and Read Local Extended Features, which the
    # kernel's own initialisation reads from a chip with extended features.
    broadcom: str | None = None

    def commands(self, base: frozenset[int] = SUPPORTED_COMMANDS) -> frozenset[int]:
        commands = set(base)
        if self.broadcom is not None:
            commands |= broadcom.COMMANDS | {hci.HCI_READ_LOCAL_NAME_COMMAND,
                                             hci.HCI_READ_LOCAL_EXTENDED_FEATURES_COMMAND}
        if not self.key_size_command:
            commands.discard(hci.HCI_READ_ENCRYPTION_KEY_SIZE_COMMAND)
        if self.ll_privacy:
            commands |= RESOLVING_LIST_COMMANDS
        if self.extended_scanning:
            commands |= EXTENDED_SCANNING_COMMANDS
        return frozenset(commands)

    def le_features(self, base: hci.LeFeatureMask = LE_FEATURES) -> hci.LeFeatureMask:
        features = base | hci.LeFeatureMask.LL_PRIVACY if self.ll_privacy else base
        if self.extended_scanning:
            features |= hci.LeFeatureMask.LE_EXTENDED_ADVERTISING
        return features


def supported_commands_bitmap(commands: frozenset[int] = SUPPORTED_COMMANDS) -> bytes:
    bits = 0
    for opcode in commands:
        bits |= hci.HCI_SUPPORTED_COMMANDS_MASKS.get(opcode, 0)
    return bits.to_bytes(64, 'little')


def data_time(octets: int) -> int:
    """Air time in microseconds of a PDU with `octets` payload on the LE 1M PHY."""
    return (octets + 14) * 8


def max_octets_for_time(time_us: int) -> int:
    """Largest payload that fits in `time_us` on the LE 1M PHY."""
    return max(MIN_DATA_OCTETS, min(MAX_DATA_OCTETS, time_us // 8 - 14))
