"""The Broadcom bring-up a Raspberry Pi's Bluetooth chip answers.

On the Pi the kernel's serdev `hci_bcm` driver (in `hci_uart`) brings the
onboard chip up through `btbcm` before anyone else may use it, with vendor
commands (OGF 0x3F) a plain LE controller answers Unknown HCI Command:

  0xFC79 Read Verbose Config Version Info   chip id, 7 bytes with the status
  0xFC6E Read Controller Features           9 bytes with the status
  0xFC18 Update UART Baud Rate              the UART moves to `max-speed`
  0xFC45 Write UART Clock Setting            only above 3 Mbaud
  0xFC2E Download Minidriver                the chip waits for patch RAM
  0xFC4C Write RAM                          the .hcd file, one record each
  0xFC4E Launch RAM                         run the patch (reset after it)

and it picks the patch file (brcm/NAME.hcd) by the LMP subversion of Read
Local Version Information, Broadcom's manufacturer id 15. A chip here
answers these as the real one does, with the subversion of the chip it
stands for, and keeps what it was sent (minidriver mode, patch bytes, the
baud rate asked for) so a test can check the kernel's path ran.
"""

from __future__ import annotations

import dataclasses
import logging
import struct
from typing import Callable

logger = logging.getLogger(__name__)

READ_VERBOSE_CONFIG = 0xFC79
READ_CONTROLLER_FEATURES = 0xFC6E
UPDATE_UART_BAUD_RATE = 0xFC18
WRITE_UART_CLOCK_SETTING = 0xFC45
DOWNLOAD_MINIDRIVER = 0xFC2E
WRITE_RAM = 0xFC4C
LAUNCH_RAM = 0xFC4E
WRITE_SLEEP_MODE = 0xFC27

COMMANDS = frozenset({READ_VERBOSE_CONFIG, READ_CONTROLLER_FEATURES, UPDATE_UART_BAUD_RATE,
                      WRITE_UART_CLOCK_SETTING, DOWNLOAD_MINIDRIVER, WRITE_RAM, LAUNCH_RAM, WRITE_SLEEP_MODE})

MANUFACTURER_BROADCOM = 0x000F

# btbcm's bcm_uart_subver_table: the name it builds the patch file's from,
# the LMP subversion, and the chip id Read Verbose Config reports.
CHIPS = {
    'BCM43430A1': (0x2209, 0x24),  # Pi 3B (BCM43438)
    'BCM43430B0': (0x410C, 0x2C),  # Zero 2 W (CYW43436)
    'BCM4345C0': (0x6119, 0x2D),  # Pi 3B+, 3A+, 4B, CM4 (CYW43455)
    'BCM4345C5': (0x6606, 0x2D),  # Pi 400 (CYW43456)
}


@dataclasses.dataclass
class BroadcomChip:
    """What the kernel's bring-up did to this chip."""

    name: str
    minidriver: bool = False
    patch_bytes: int = 0
    patch_records: int = 0
    launched: int = 0
    baud_rate: int | None = None
    # Told of every Launch RAM (the simulator reports it as an event).
    on_launch: Callable[['BroadcomChip'], None] | None = None

    @property
    def subversion(self) -> int:
        return CHIPS[self.name][0]

    @property
    def chip_id(self) -> int:
        return CHIPS[self.name][1]

    @property
    def hci_revision(self) -> int:
        # The build number btbcm prints; a patched chip reports another.
        return 0x0100 + self.launched

    def answer(self, opcode: int, parameters: bytes) -> bytes:
        """The return parameters (status first) of a vendor command."""
        if opcode == READ_VERBOSE_CONFIG:
            # Status, chip id, target id, build base, build number.
            return struct.pack('<BBBHH', 0, self.chip_id, 0xFF, 0x0000, self.hci_revision)
        if opcode == READ_CONTROLLER_FEATURES:
            return bytes([0]) + struct.pack('<Q', 0x03)
        if opcode == UPDATE_UART_BAUD_RATE:
            if len(parameters) != 6:
                return bytes([0x12])
            self.baud_rate = struct.unpack_from('<I', parameters, 2)[0]
            logger.info('[%s] UART baud rate %d', self.name, self.baud_rate)
            return bytes([0])
        if opcode == DOWNLOAD_MINIDRIVER:
            self.minidriver = True
            return bytes([0])
        if opcode == WRITE_RAM:
            if not self.minidriver:
                return bytes([0x0C])  # Command Disallowed: no minidriver
            self.patch_records += 1
            self.patch_bytes += max(0, len(parameters) - 4)
            return bytes([0])
        if opcode == LAUNCH_RAM:
            if not self.minidriver:
                return bytes([0x0C])
            self.minidriver = False
            self.launched += 1
            logger.info('[%s] patch RAM launched: %d records, %d bytes', self.name, self.patch_records,
                        self.patch_bytes)
            if self.on_launch is not None:
                self.on_launch(self)
            return bytes([0])
        return bytes([0])  # Write UART Clock Setting, Write Sleep Mode
