"""The appliance booted under QEMU with the simulated phone: runs
image/boot-test (see there for what it checks) on the qemu-virt image.

    image/build --board qemu-virt
    python3 -m unittest discover -s Tests/Image -p 'test_qemu_boot.py' -v

Its report, the console log, the phone's events and screenshots are in
out/image/boot-test/.
"""
import json
import os
import subprocess
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class QemuBoot(unittest.TestCase):
    def test_boots_pairs_draws_and_survives_a_crash_and_a_hang(self):
        image = os.path.join(TOP, "out", "image", "headunit-qemu-virt.img")
        self.assertTrue(os.path.exists(image), f"{image} missing: run image/build --board qemu-virt")
        artifacts = os.path.join(TOP, "out", "image", "boot-test")
        result = subprocess.run([os.path.join(TOP, "image", "boot-test"), "--image", image,
                                 "--artifacts", artifacts], cwd=TOP, timeout=600)
        with open(os.path.join(artifacts, "report.json")) as f:
            report = json.load(f)
        failed = [f"{c['name']}: {c['detail']}" for c in report["checks"] if not c["ok"]]
        self.assertEqual(result.returncode, 0, "; ".join(failed) or report.get("error", "boot test failed"))
        names = {c["name"] for c in report["checks"] if c["ok"]}
        for check in ("the firmware holds the watchdog open",
                      "survives a firmware crash and reconnects with the bond",
                      "a hung firmware and supervisor get the board reset by the watchdog",
                      "a hung firmware is restarted by the supervisor before the watchdog fires",
                      "a killed firmware reconnects after the phone's supervision timeout",
                      "a stock iPhone pairs from Settings with the passkey from the serial console",
                      "a Maps instruction through NotifBridge on the screen"):
            self.assertIn(check, names)
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
