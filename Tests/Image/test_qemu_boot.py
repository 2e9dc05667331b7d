"""The appliance booted under QEMU with the simulated phone: runs
image/boot-test (see there for what it checks) on the qemu-virt image.

    image/build --board qemu-virt
    python3 -m unittest discover -s Tests/Image -p 'test_qemu_boot.py' -v

Its report, the console log, the phone's events and screenshots are in
out/image/boot-test/.
"""
import sys
import unittest

from qemu_image_test import run_image_test


class QemuBoot(unittest.TestCase):
    def test_boots_pairs_draws_and_survives_a_crash_and_a_hang(self):
        report = run_image_test(self, "boot-test", timeout=600, checks=(
            "the firmware holds the watchdog open",
            "survives a firmware crash and reconnects with the bond",
            "a hung firmware and supervisor get the board reset by the watchdog",
            "a hung firmware is restarted by the supervisor before the watchdog fires",
            "a killed firmware reconnects after the phone's supervision timeout",
            "a stock iPhone pairs from Settings with the passkey from the serial console",
            "a Maps instruction through NotifBridge on the screen"))
        timings = report["timings_s"]
        sys.stderr.write(f"boot-to-first-frame {timings.get('first_frame_s')} s, "
                         f"crash to reconnected {timings.get('crash_to_reconnected_s')} s "
                         f"(SIGKILL {timings.get('kill_to_reconnected_s')} s), "
                         f"hang to reconnected {timings.get('hang_to_reconnected_s')} s "
                         f"(supervisor's heartbeat; supervisor frozen too: watchdog reset "
                         f"{timings.get('frozen_to_watchdog_reset_s')} s, reconnected "
                         f"{timings.get('frozen_to_reconnected_s')} s), "
                         f"whole test {report['total_s']} s\n")


if __name__ == "__main__":
    unittest.main()
