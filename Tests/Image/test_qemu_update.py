"""A/B updates on the qemu-virt image: runs image/update-test (see there and
docs/UPDATES.md): a bundle signed with another key refused, an older
version refused, trials whose firmware crashes or hangs (the watchdog) or
whose power is cut rolled back by themselves, a good bundle installed from
a USB stick with `update PATH`, booted on trial and marked good.

    image/build --board qemu-virt
    python3 -m unittest discover -s Tests/Image -p 'test_qemu_update.py' -v

Its report and logs are in out/image/update-test/.
"""
import json
import os
import subprocess
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class QemuUpdate(unittest.TestCase):
    def test_refuses_rolls_back_and_installs(self):
        image = os.path.join(TOP, "out", "image", "headunit-qemu-virt.img")
        self.assertTrue(os.path.exists(image), f"{image} missing: run image/build --board qemu-virt")
        artifacts = os.path.join(TOP, "out", "image", "update-test")
        result = subprocess.run([os.path.join(TOP, "image", "update-test"), "--image", image,
                                 "--artifacts", artifacts], cwd=TOP, timeout=1800)
        with open(os.path.join(artifacts, "report.json")) as f:
            report = json.load(f)
        failed = [f"{c['name']}: {c['detail']}" for c in report["checks"] if not c["ok"]]
        self.assertEqual(result.returncode, 0, "; ".join(failed) or report.get("error", "update test failed"))
        names = {c["name"] for c in report["checks"] if c["ok"]}
        for check in ("a bundle signed with another key is refused before anything is written",
                      "a bundle older than the running version is refused before anything is written",
                      "a trial whose firmware crashes falls back to slot A by itself",
                      "a trial whose firmware hangs is reset by the watchdog and falls back to slot A",
                      "a power cut during a trial falls back to slot A",
                      "a good bundle is installed, booted on trial and marked good",
                      "the new slot stays after a reboot"):
            self.assertIn(check, names)
        timings = report["timings_s"]
        sys.stderr.write(f"install {timings.get('install_good_bundle_s')} s, marked good "
                         f"{timings.get('update_to_marked_good_s')} s after update, whole test {report['total_s']} s\n")


if __name__ == "__main__":
    unittest.main()
