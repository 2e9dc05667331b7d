"""The update bundle image/build writes beside each image (docs/UPDATES.md):
its manifest names the board, the image's version and slot A's root (size
and SHA-256 of the squashfs in partition 2), its signature verifies with the
public key inside that root (/etc/headunit/update-key.pub), and the image
has an empty slot B and a blank boot state (slot A active).

    image/build
    python3 -m unittest discover -s Tests/Image -p 'test_update_bundle.py' -v
"""
import hashlib
import lzma
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(TOP, "out", "image")
SECTOR = 512


def parse_bundle(data):
    """(manifest lines, signed bytes, signature, payload) as docs/UPDATES.md lays it out."""
    assert data[:8] == b"NNBUNDLE", "no NNBUNDLE magic"
    fmt, flags, length = struct.unpack("<HHI", data[8:16])
    assert (fmt, flags) == (1, 0)
    signed = data[:16 + length]
    manifest = signed[16:].decode("ascii").splitlines()
    return manifest, signed, data[16 + length:80 + length], data[80 + length:]


class UpdateBundle(unittest.TestCase):
    def check_board(self, board, image):
        bundle_path = os.path.join(OUT, f"headunit-{board}.hubundle")
        self.assertTrue(os.path.exists(bundle_path), f"{bundle_path} missing: image/build writes it")
        with open(bundle_path, "rb") as f:
            manifest, signed, signature, payload = parse_bundle(f.read())
        with open(image, "rb") as f:
            disk = f.read()
        entries = [struct.unpack("<II", disk[446 + 16 * i + 8:446 + 16 * i + 16]) for i in range(4)]
        (a_first, a_count), (b_first, b_count) = entries[1], entries[3]
        self.assertEqual(a_count, b_count)
        self.assertEqual(disk[2 << 20:(2 << 20) + SECTOR], bytes(SECTOR), "the boot state must be blank (slot A)")
        self.assertEqual(disk[b_first * SECTOR:(b_first + 8) * SECTOR], bytes(8 * SECTOR), "slot B must be empty")
        root = disk[a_first * SECTOR:(a_first + a_count) * SECTOR]
        self.assertEqual(root[:4], b"hsqs")
        # bytes_used (offset 40), which mksquashfs pads to 4 KiB in its file.
        root = root[:(struct.unpack("<Q", root[40:48])[0] + 4095) // 4096 * 4096]
        self.assertEqual(manifest[0], "format 1")
        self.assertEqual(manifest[1], f"compatible {board}")
        self.assertEqual(manifest[3], f"image root {len(root)} {hashlib.sha256(root).hexdigest()}")
        self.assertEqual(len(manifest), 4)
        self.assertEqual(payload, root)

        tmp = tempfile.mkdtemp(prefix="headunit-bundle-")
        try:
            squash = os.path.join(tmp, "root.squashfs")
            with open(squash, "wb") as f:
                f.write(root)
            release = subprocess.run(["unsquashfs", "-cat", squash, "/etc/headunit/release"],
                                     check=True, capture_output=True, text=True).stdout
            self.assertIn(f"HEADUNIT_IMAGE_VERSION={manifest[2].split(' ', 1)[1]}\n", release)
            key_hex = subprocess.run(["unsquashfs", "-cat", squash, "/etc/headunit/update-key.pub"],
                                     check=True, capture_output=True, text=True).stdout.strip()
            self.assertRegex(key_hex, r"^[0-9a-f]{64}$")
            # The raw key as a SubjectPublicKeyInfo for openssl: the fixed Ed25519 prefix, then the key.
            der = bytes.fromhex("302a300506032b6570032100") + bytes.fromhex(key_hex)
            for name, content in (("key.der", der), ("signed", signed), ("signature", signature)):
                with open(os.path.join(tmp, name), "wb") as f:
                    f.write(content)
            verify = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-keyform", "DER",
                                     "-inkey", os.path.join(tmp, "key.der"), "-rawin", "-in", os.path.join(tmp, "signed"),
                                     "-sigfile", os.path.join(tmp, "signature")], capture_output=True, text=True)
            self.assertEqual(verify.returncode, 0, verify.stdout + verify.stderr)
            # Another message with the same signature does not verify (the check can fail).
            with open(os.path.join(tmp, "signed"), "ab") as f:
                f.write(b"x")
            forged = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-keyform", "DER",
                                     "-inkey", os.path.join(tmp, "key.der"), "-rawin", "-in", os.path.join(tmp, "signed"),
                                     "-sigfile", os.path.join(tmp, "signature")], capture_output=True, text=True)
            self.assertNotEqual(forged.returncode, 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_qemu_virt_bundle(self):
        image = os.path.join(OUT, "headunit-qemu-virt.img")
        if not os.path.exists(image):
            self.fail(f"{image} missing: image/build --board qemu-virt")
        self.check_board("qemu-virt", image)

    def test_rpi_bundle(self):
        image_xz = os.path.join(OUT, "headunit-rpi.img.xz")
        if not os.path.exists(image_xz):
            self.fail(f"{image_xz} missing: image/build --board rpi")
        tmp = tempfile.mkdtemp(prefix="headunit-rpi-bundle-")
        try:
            image = os.path.join(tmp, "headunit-rpi.img")
            with lzma.open(image_xz) as src, open(image, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            self.check_board("rpi", image)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
