"""What the qemu image tests share: run one of image/'s test scripts on the
qemu-virt image, read its report.json and check that it passed with the
named checks among those that passed.

    report = run_image_test(self, "boot-test", timeout=600, checks=(...))
"""
import json
import os
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE = os.path.join(TOP, "out", "image", "headunit-qemu-virt.img")


def run_image_test(test, script, timeout, checks):
    """Runs image/SCRIPT with --image and --artifacts out/image/SCRIPT, fails
    TEST (a unittest.TestCase) with the failed checks' details, and returns
    the report (its timings_s and total_s for the caller's summary line)."""
    test.assertTrue(os.path.exists(IMAGE), f"{IMAGE} missing: run image/build --board qemu-virt")
    artifacts = os.path.join(TOP, "out", "image", script)
    result = subprocess.run([os.path.join(TOP, "image", script), "--image", IMAGE, "--artifacts", artifacts],
                            cwd=TOP, timeout=timeout)
    with open(os.path.join(artifacts, "report.json")) as f:
        report = json.load(f)
    failed = [f"{c['name']}: {c['detail']}" for c in report["checks"] if not c["ok"]]
    test.assertEqual(result.returncode, 0, "; ".join(failed) or report.get("error", f"{script} failed"))
    passed = {c["name"] for c in report["checks"] if c["ok"]}
    for check in checks:
        test.assertIn(check, passed)
    return report
