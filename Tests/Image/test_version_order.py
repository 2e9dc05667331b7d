"""Rollback protection (docs/UPDATES.md): the installer script refuses a
bundle older than the running version. The shell functions it uses
(image/rootfs/usr/lib/headunit/slots.sh: version_stamp, version_older,
bundle_version) run here under the host's /bin/sh and, when an image has
been built, under the image's own busybox sh through qemu-aarch64-static.
No image needed.

    python3 -m unittest discover -s Tests/Image -p 'test_version_order.py' -v
"""
import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SLOTS = os.path.join(TOP, "image", "rootfs", "usr", "lib", "headunit", "slots.sh")
BUSYBOX = os.path.join(TOP, ".build-image", "pkg", "busybox-static", "bin", "busybox")


def shells():
    found = [["/bin/sh"]]
    if os.path.exists(BUSYBOX) and shutil.which("qemu-aarch64-static"):
        found.append(["qemu-aarch64-static", BUSYBOX, "sh"])
    return found


class VersionOrder(unittest.TestCase):
    def sh(self, shell, script, *args):
        return subprocess.run([*shell, "-c", f'. "{SLOTS}"; {script}', "sh", *args],
                              capture_output=True, text=True, timeout=60)

    def older(self, shell, new, running):
        return self.sh(shell, 'version_older "$1" "$2"', new, running).returncode == 0

    def test_stamp(self):
        for shell in shells():
            with self.subTest(shell=shell[-1]):
                out = self.sh(shell, 'version_stamp "$1"', "2026.11.27.150912-bcc9011-dirty+crash").stdout
                self.assertEqual(out.strip(), "20261127150912")
                self.assertEqual(self.sh(shell, 'version_stamp "$1"', "bcc9011").stdout, "")
                self.assertEqual(self.sh(shell, 'version_stamp "$1"', "2026.11.27-83f970c").stdout, "")

    def test_older_refused_same_or_newer_accepted(self):
        running = "2026.11.27.150912-bcc9011"
        for shell in shells():
            with self.subTest(shell=shell[-1]):
                self.assertTrue(self.older(shell, "2025.11.27.150912-bcc9011+older", running))
                self.assertTrue(self.older(shell, "2026.11.27.150911-0123abc", running))
                # Not ordered against a stamped running version: refused.
                self.assertTrue(self.older(shell, "83f970c", running))
                self.assertTrue(self.older(shell, "", running))
                # The same commit (rebuilt, renamed) and newer ones.
                self.assertFalse(self.older(shell, running, running))
                self.assertFalse(self.older(shell, running + "+update-test", running))
                self.assertFalse(self.older(shell, "2026.11.27.150913-fedcba9", running))
                self.assertFalse(self.older(shell, "2027.01.01.000000-fedcba9", running))
                # A running image from before the stamp orders nothing.
                self.assertFalse(self.older(shell, "2020.01.01.000000-0000000", "bcc9011"))
                self.assertFalse(self.older(shell, "83f970c", "bcc9011"))

    def test_bundle_version_read_from_the_manifest(self):
        tmp = tempfile.mkdtemp(prefix="headunit-version-")
        try:
            root = os.path.join(tmp, "root.img")
            with open(root, "wb") as f:
                # Payload bytes that look like a manifest line must not be taken for it.
                f.write(b"\nversion 2099.01.01.000000-payload\n" + bytes(range(256)) * 64)
            bundle = os.path.join(tmp, "b.hubundle")
            subprocess.run([os.path.join(TOP, "image", "mkbundle"), "--key",
                            os.path.join(TOP, "image", "keys", "test-update-key.pem"), "--compatible", "qemu-virt",
                            "--version", "2026.11.27.150912-bcc9011+x", "--out", bundle, "root=" + root],
                           check=True, capture_output=True)
            for shell in shells():
                with self.subTest(shell=shell[-1]):
                    out = self.sh(shell, 'bundle_version "$1"', bundle).stdout
                    self.assertEqual(out.strip(), "2026.11.27.150912-bcc9011+x")
            self.assertEqual(self.sh(["/bin/sh"], 'bundle_version "$1"', os.path.join(tmp, "none")).stdout, "")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
