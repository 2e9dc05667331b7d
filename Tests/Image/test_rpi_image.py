"""The Raspberry Pi image as a user flashes it, one for every 64-bit Pi
with Bluetooth (3A+, 3B, 3B+, Zero 2 W, 4B, 400, CM4): partition table,
boot partition (both boot firmwares, config.txt with a section per model,
cmdline.txt, kernel, device trees, the DSI display's overlay, initramfs)
and the read-only root.

    image/build --board rpi
    python3 -m unittest discover -s Tests/Image -p 'test_rpi_image.py' -v

Reads out/image/headunit-rpi.img.xz (or $HEADUNIT_IMAGE_DIR). Needs mtools
and squashfs-tools, and fdtoverlay for the overlay check (scripts/setup
--image).
"""
import gzip
import hashlib
import lzma
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

TOP_BOARD = "rpi"

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE_DIR = os.environ.get("HEADUNIT_IMAGE_DIR", os.path.join(TOP, "out", "image"))
IMAGE_XZ = os.path.join(IMAGE_DIR, "headunit-rpi.img.xz")
SECTOR = 512
DISK_ID = 0x68656164


def partitions(mbr):
    """(bootable, type, first sector, sectors) of the four MBR entries."""
    entries = []
    for i in range(4):
        e = mbr[446 + 16 * i:446 + 16 * (i + 1)]
        status, kind = e[0], e[4]
        first, count = struct.unpack("<II", e[8:16])
        entries.append((status, kind, first, count))
    return entries


# Each model: its mainline device tree, the compatible string the board
# configuration matches, the patch RAM its chip needs (btbcm's name for it).
MODELS = {
    "3A+": ("bcm2837-rpi-3-a-plus.dtb", "raspberrypi,3-model-a-plus", "BCM4345C0"),
    "3B": ("bcm2837-rpi-3-b.dtb", "raspberrypi,3-model-b", "BCM43430A1"),
    "3B+": ("bcm2837-rpi-3-b-plus.dtb", "raspberrypi,3-model-b-plus", "BCM4345C0"),
    "Zero 2 W": ("bcm2837-rpi-zero-2-w.dtb", "raspberrypi,model-zero-2-w", "BCM43430B0"),
    "4B": ("bcm2711-rpi-4-b.dtb", "raspberrypi,4-model-b", "BCM4345C0"),
    "400": ("bcm2711-rpi-400.dtb", "raspberrypi,400", "BCM4345C5"),
    "CM4": ("bcm2711-rpi-cm4-io.dtb", "raspberrypi,4-compute-module", "BCM4345C0"),
}


class RaspberryPiImage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(IMAGE_XZ):
            raise AssertionError(f"{IMAGE_XZ} missing: run image/build --board rpi")
        cls.tmp = tempfile.mkdtemp(prefix="headunit-rpi-")
        cls.image = os.path.join(cls.tmp, "headunit-rpi.img")
        with lzma.open(IMAGE_XZ) as src, open(cls.image, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        with open(cls.image, "rb") as f:
            cls.mbr = f.read(SECTOR)
        cls.parts = partitions(cls.mbr)
        cls.boot_offset = cls.parts[0][2] * SECTOR
        cls.boot_files = {}
        listing = cls.mtools("mdir", "-b", "::/")
        for line in listing.split("\n"):
            name = line.strip().lstrip(":/").strip()
            if name:
                cls.boot_files[name] = None

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def mtools(cls, tool, *args):
        env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
        return subprocess.run([tool, "-i", f"{cls.image}@@{cls.boot_offset}", *args], check=True,
                              capture_output=True, env=env).stdout.decode("utf-8", "replace")

    def boot_file(self, name):
        if self.boot_files.get(name) is None:
            out = os.path.join(self.tmp, "boot-" + name)
            self.mtools("mcopy", "-n", f"::{name}", out)
            with open(out, "rb") as f:
                self.boot_files[name] = f.read()
        return self.boot_files[name]

    def read(self, offset, size):
        with open(self.image, "rb") as f:
            f.seek(offset)
            return f.read(size)

    # --- the download itself -------------------------------------------
    def test_checksum_file_matches(self):
        with open(IMAGE_XZ + ".sha256") as f:
            expected, name = f.read().split()
        self.assertEqual(name, "headunit-rpi.img.xz")
        h = hashlib.sha256()
        with open(IMAGE_XZ, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        self.assertEqual(h.hexdigest(), expected)

    # --- partition table ---------------------------------------------------
    def test_mbr_with_the_disk_signature_root_names(self):
        self.assertEqual(self.mbr[510:512], b"\x55\xaa", "no MBR boot signature")
        self.assertEqual(struct.unpack("<I", self.mbr[440:444])[0], DISK_ID)

    def test_partitions_boot_root_slots_data(self):
        (s1, t1, f1, n1), (s2, t2, f2, n2), (s3, t3, f3, n3), (_, t4, f4, n4) = self.parts
        self.assertEqual(t1, 0x0C, "partition 1 must be FAT32 (LBA): the Pi's boot ROM reads only FAT")
        self.assertEqual(s1, 0x80, "partition 1 must be marked bootable")
        self.assertEqual((t2, t3, t4), (0x83, 0x83, 0x83))
        # Aligned to 4 MiB (SD card erase blocks), not overlapping, and
        # inside the image: boot, root slot A (2), root slot B (4), data (3)
        # on disk (docs/UPDATES.md).
        self.assertEqual(f1 % 8192, 0)
        self.assertLessEqual(f1 + n1, f2)
        self.assertLessEqual(f2 + n2, f4)
        self.assertLessEqual(f4 + n4, f3)
        self.assertEqual(n2, n4, "the two root slots differ in size")
        self.assertLessEqual((f3 + n3) * SECTOR, os.path.getsize(self.image))
        self.assertGreaterEqual(n1 * SECTOR, 48 << 20, "boot partition too small for kernel and initramfs")
        self.assertGreaterEqual(n3 * SECTOR, 16 << 20, "data partition too small")

    def test_root_partition_is_squashfs_with_the_firmware(self):
        first, count = self.parts[1][2], self.parts[1][3]
        self.assertEqual(self.read(first * SECTOR, 4), b"hsqs")
        listing = subprocess.run(["unsquashfs", "-o", str(first * SECTOR), "-l", "-d", "", self.image],
                                 check=True, capture_output=True).stdout.decode()
        files = {line.strip() for line in listing.split("\n")}
        for path in ("/sbin/init", "/bin/busybox", "/usr/bin/headunit", "/etc/inittab",
                     "/etc/init.d/rcS", "/usr/libexec/headunit/supervise", "/etc/headunit/boards/rpi.conf",
                     "/lib/ld-linux-aarch64.so.1", "/usr/sbin/mke2fs", "/lib/firmware/brcm/BCM4345C0.hcd",
                     "/lib/firmware/brcm/BCM4345C5.hcd", "/lib/firmware/brcm/BCM43430A1.hcd",
                     "/lib/firmware/brcm/BCM43430B0.hcd",
                     "/usr/share/headunit/fonts/DejaVuSans.ttf", "/etc/headunit.conf", "/usr/share/headunit/fonts/DejaVuSans-Bold.ttf"):
            self.assertIn(path, files)
        modules = {os.path.basename(p) for p in files if p.endswith(".ko")}
        for module in ("hci_uart.ko", "btbcm.ko", "bluetooth.ko", "vc4.ko", "snd-soc-hdmi-codec.ko",
                       "bcm2835_wdt.ko", "ext4.ko", "iproc-rng200.ko", "bcm2835-rng.ko", "bcm2835.ko",
                       "i2c-bcm2835.ko", "panel-raspberrypi-touchscreen.ko", "edt-ft5x06.ko", "dwc2.ko",
                       "xhci-pci.ko", "usbhid.ko", "hid-multitouch.ko", "hid-generic.ko",
                       "raspberrypi-cpufreq.ko", "cpufreq-dt.ko"):
            self.assertIn(module, modules)
        self.assertNotIn("v3d.ko", modules, "v3d would take /dev/dri/card0 from the display")

    def test_data_partition_is_empty_until_first_boot(self):
        first = self.parts[2][2] * SECTOR
        # No ext superblock: the first boot formats it (rcS).
        self.assertNotEqual(self.read(first + 1080, 2), b"\x53\xef")

    # --- boot partition -------------------------------------------------------
    def test_boot_firmware_of_both_families_present(self):
        # bootcode.bin, start.elf, fixup.dat: Pi 3 family and Zero 2 W;
        # start4.elf, fixup4.dat: Pi 4 family (its boot ROM is in EEPROM).
        for name in ("bootcode.bin", "start.elf", "fixup.dat", "start4.elf", "fixup4.dat"):
            self.assertIn(name, self.boot_files)
            self.assertGreater(len(self.boot_file(name)), 0)

    def test_headunit_conf_on_the_boot_partition(self):
        self.assertIn("headunit.conf", self.boot_files)
        text = self.boot_file("headunit.conf").decode()
        self.assertIn("[bluetooth]", text)

    def test_device_trees_for_every_model(self):
        board = self.board_conf()
        for model, (name, compatible, _) in MODELS.items():
            self.assertIn(name, self.boot_files, model)
            dtb = self.boot_file(name)
            self.assertEqual(dtb[:4], b"\xd0\x0d\xfe\xed", f"{name} is not a device tree")
            # The onboard Bluetooth chip under the PL011 (serdev hci_bcm), and
            # the model the board configuration picks by its compatible string.
            self.assertIn(b"brcm,bcm43438-bt", dtb, model)
            self.assertIn(compatible.encode(), dtb, model)
            self.assertIn(compatible, board["BOARD_COMPATIBLE"].split(), model)
        # The KMS display pipelines (vc4 on the HVS) of both SoCs.
        self.assertIn(b"brcm,bcm2711-vc5", self.boot_file("bcm2711-rpi-4-b.dtb"))
        self.assertIn(b"brcm,bcm2835-vc4", self.boot_file("bcm2837-rpi-3-b.dtb"))

    def board_conf(self):
        settings = {}
        with open(os.path.join(TOP, "board", TOP_BOARD, "board.conf")) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#") and "=" in line:
                    key, value = line.split("=", 1)
                    settings[key] = value.strip('"')
        return settings

    def test_patch_ram_for_every_chip(self):
        first, count = self.parts[1][2], self.parts[1][3]
        listing = subprocess.run(["unsquashfs", "-o", str(first * SECTOR), "-l", "-d", "", self.image],
                                 check=True, capture_output=True).stdout.decode()
        for model, (_, _, chip) in MODELS.items():
            self.assertIn(f"/lib/firmware/brcm/{chip}.hcd", listing, model)

    def test_dsi_display_overlay(self):
        """The official 7-inch display's overlay, where the boot firmware's
        display_auto_detect looks for it, applies to both SoCs' trees."""
        name = "overlays/vc4-kms-dsi-7inch.dtbo"
        out = os.path.join(self.tmp, "dsi.dtbo")
        self.mtools("mcopy", "-n", f"::{name}", out)
        with open(out, "rb") as f:
            self.assertEqual(f.read(4), b"\xd0\x0d\xfe\xed")
        settings, _ = self.config()
        self.assertEqual(settings.get("display_auto_detect"), "1")
        if shutil.which("fdtoverlay") is None:
            self.skipTest("fdtoverlay missing (device-tree-compiler: scripts/setup --image)")
        for base in ("bcm2837-rpi-3-b.dtb", "bcm2711-rpi-4-b.dtb"):
            self.boot_file(base)
            merged = os.path.join(self.tmp, "merged-" + base)
            subprocess.run(["fdtoverlay", "-i", os.path.join(self.tmp, "boot-" + base), "-o", merged, out], check=True)
            with open(merged, "rb") as f:
                tree = f.read()
            self.assertIn(b"raspberrypi,7inch-touchscreen-panel", tree, base)
            self.assertIn(b"edt,edt-ft5406", tree, base)

    def config(self, section="all"):
        """The settings in force in `section` ([all] and that model filter)."""
        settings, directives = {}, []
        current = "all"
        for line in self.boot_file("config.txt").decode().split("\n"):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("["):
                current = line.strip("[]")
                continue
            if current not in ("all", section):
                continue
            if "=" in line:
                key, value = line.split("=", 1)
                settings[key.strip()] = value.strip()
            else:
                directives.append(line.split())
        return settings, directives

    def test_config_txt(self):
        settings, directives = self.config()
        self.assertEqual(settings.get("arm_64bit"), "1")
        self.assertEqual(settings.get("enable_uart"), "1", "console on the mini UART needs enable_uart=1")
        self.assertEqual(settings.get("upstream_kernel"), "1")
        # The full ARM clock from power-on until the kernel's cpufreq driver takes over.
        self.assertEqual(settings.get("initial_turbo"), "60")
        # The mini UART's baud rate follows the core clock: pinned per SoC.
        for section, clock in (("pi3", "250"), ("pi02", "250"), ("pi4", "500")):
            model = self.config(section)[0]
            self.assertEqual((model.get("core_freq"), model.get("core_freq_min")), (clock, clock), section)
        self.assertEqual(self.config("pi02")[0].get("device_tree"), "bcm2837-rpi-zero-2-w.dtb")
        self.assertEqual(self.config("cm4")[0].get("device_tree"), "bcm2711-rpi-cm4-io.dtb")
        # Bluetooth stays on the PL011 (the Pi 4 default): no overlay moves it.
        for key, value in settings.items():
            if key == "dtoverlay":
                self.assertNotIn(value.split(",")[0], ("miniuart-bt", "disable-bt", "pi3-miniuart-bt"))
        self.assertIn(settings.get("kernel"), self.boot_files, "config.txt names a kernel that is not there")
        initramfs = [d for d in directives if d[0] == "initramfs"]
        self.assertEqual(len(initramfs), 1, "config.txt must load the initramfs")
        self.assertIn(initramfs[0][1], self.boot_files)

    def test_kernel_is_a_gzip_archive_of_an_arm64_image(self):
        # The boot firmware unpacks a gzip archive (found by its signature
        # bytes) and reads a third of the bytes from the card.
        packed = self.boot_file(self.config()[0]["kernel"])
        self.assertEqual(packed[:2], b"\x1f\x8b", "the kernel is not a gzip archive")
        kernel = gzip.decompress(packed)
        self.assertEqual(kernel[0x38:0x3C], b"ARM\x64", "not an arm64 Linux Image")
        self.assertLess(len(packed), len(kernel) // 2)

    def test_initramfs_has_init_and_the_sd_card_driver(self):
        name = [d for d in self.config()[1] if d[0] == "initramfs"][0][1]
        cpio = self.boot_file(name)
        # Uncompressed since the kernel's unpacking showed in the boot
        # timeline; a gzip archive (older images) is read too.
        if cpio[:2] == b"\x1f\x8b":
            cpio = gzip.decompress(cpio)
        names = set()
        pos = 0
        while pos < len(cpio):
            self.assertEqual(cpio[pos:pos + 6], b"070701", "initramfs is not a newc cpio archive")
            namesize = int(cpio[pos + 94:pos + 102], 16)
            filesize = int(cpio[pos + 54:pos + 62], 16)
            name_end = pos + 110 + namesize
            entry = cpio[pos + 110:name_end - 1].decode()
            if entry == "TRAILER!!!":
                break
            names.add(entry)
            pos = (name_end + 3) & ~3
            pos = (pos + filesize + 3) & ~3
        self.assertIn("init", names)
        self.assertIn("dev/console", names)
        modules = {os.path.basename(n) for n in names if n.endswith(".ko")}
        # The SD card: sdhost on the Pi 3 family, emmc2 on the Pi 4 family.
        self.assertTrue({"sdhci-iproc.ko", "bcm2835.ko", "squashfs.ko"} <= modules, modules)

    def test_cmdline_txt(self):
        text = self.boot_file("cmdline.txt").decode()
        self.assertEqual(text.strip().count("\n"), 0, "cmdline.txt must be one line")
        words = text.split()
        self.assertIn("console=ttyS1,115200", words, "console on the mini UART (mainline ttyS1)")
        self.assertIn(f"root=PARTUUID={DISK_ID:08x}-02", words)
        # The SoC's hardware RNG credits the kernel's entropy pool (6.1's
        # rng_core credits nothing by default), so getrandom() in the head
        # unit's start does not wait for the pool.
        self.assertIn("rng_core.default_quality=1024", words)
        # The board is found by the device tree's compatible string: one
        # command line for every model.
        self.assertFalse([w for w in words if w.startswith("headunit.board=")])
        self.assertFalse([w for w in words if w.startswith("headunit.debugshell")],
                         "a shipped image must not open a root shell")


if __name__ == "__main__":
    unittest.main()
