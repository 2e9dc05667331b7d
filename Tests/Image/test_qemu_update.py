"""A/B updates on the qemu-virt image: runs image/update-test (see there and
docs/UPDATES.md): a bundle signed with another key refused, an older
version refused, trials whose firmware crashes or hangs (the watchdog) or
whose power is cut rolled back by themselves, a good bundle installed from
a USB stick with `update PATH`, booted on trial and marked good; over
GhostDrop from the simulated phone: a bundle with a bad signature refused
with nothing written, and the image's whole update bundle sent, its
transfer cut by a reboot and resumed after it, then installed, booted on
trial and marked good (`status` shows its version).

    image/build --board qemu-virt
    python3 -m unittest discover -s Tests/Image -p 'test_qemu_update.py' -v

Its report and logs are in out/image/update-test/.
"""
import sys
import unittest

from qemu_image_test import run_image_test


class QemuUpdate(unittest.TestCase):
    def test_refuses_rolls_back_and_installs(self):
        report = run_image_test(self, "update-test", timeout=2700, checks=(
            "a bundle signed with another key is refused before anything is written",
            "a bundle older than the running version is refused before anything is written",
            "a trial whose firmware crashes falls back to slot A by itself",
            "a trial whose firmware hangs is reset by the watchdog and falls back to slot A",
            "a power cut during a trial falls back to slot A",
            "a good bundle is installed, booted on trial and marked good",
            "the new slot stays after a reboot",
            "a bundle with a bad signature sent over GhostDrop is refused with nothing written",
            "a GhostDrop transfer cut by a reboot resumes, installs, boots the new version and marks it good"))
        timings = report["timings_s"]
        sys.stderr.write(f"install {timings.get('install_good_bundle_s')} s, marked good "
                         f"{timings.get('update_to_marked_good_s')} s after update, GhostDrop steps "
                         f"{timings.get('ghostdrop_steps_s')} s (the whole root's {timings.get('ghostdrop_whole_root_s')} s, "
                         f"{timings.get('ghostdrop_payload_kib_per_s')} KiB/s of payload), whole test {report['total_s']} s\n")


if __name__ == "__main__":
    unittest.main()
