"""Runs a command and writes its peak resident memory (VmHWM, KiB) and where
that memory was (resident KiB per mapping when the peak was seen) to a JSON
file when it ends: `peak_rss.py FILE COMMAND...`. SIGTERM and SIGINT are
passed on.

VmHWM is read from /proc while the process lives (the kernel resets it at
exec, so the forked interpreter before exec does not count, unlike wait4's
ru_maxrss), every 50 ms and once more before a signal is passed on."""
import json
import os
import signal
import subprocess
import sys
import time


def resident_by_mapping(pid):
    """Resident KiB per mapped file ("[anon]" for anonymous memory, "[heap]")."""
    totals = {}
    name = "[anon]"
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:
                name = os.path.basename(fields[5]) if len(fields) > 5 else "[anon]"
            elif fields[0] == "Rss:":
                totals[name] = totals.get(name, 0) + int(fields[1])
    return dict(sorted(((k, v) for k, v in totals.items() if v), key=lambda kv: -kv[1]))


def main():
    path, command = sys.argv[1], sys.argv[2:]
    child = subprocess.Popen(command)
    peak = 0
    mappings = {}

    def sample():
        nonlocal peak, mappings
        try:
            with open(f"/proc/{child.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:") and int(line.split()[1]) > peak:
                        peak = int(line.split()[1])
                        mappings = resident_by_mapping(child.pid)
        except OSError:
            pass

    def forward(number, _frame):
        sample()
        child.send_signal(number)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    while child.poll() is None:
        sample()
        time.sleep(0.05)
    with open(path, "w") as f:
        json.dump({"peak_kb": peak, "mappings_kb": mappings}, f)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
