"""A scripted drive: the head unit (host build) against the simulated iPhone.

Starts the simulated phone (Tests/Phone), runs `headunit run` against it with
an event log, a btsnoop trace and the console on a pipe, plays a short story
and prints what the head unit reported. Everything lands in out/demo/.
"""
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Phone"))
from phone import Simulator  # noqa: E402

OUT = os.path.join(ROOT, "out", "demo")
HEADUNIT = os.path.join(ROOT, ".build", "debug", "headunit")


class HeadUnit:
    def __init__(self, port):
        self.events_path = os.path.join(OUT, "events.jsonl")
        self.process = subprocess.Popen(
            [HEADUNIT, "run", "--hci", f"tcp:127.0.0.1:{port}", "--state", os.path.join(OUT, "state"),
             "--events", self.events_path, "--trace", os.path.join(OUT, "trace.btsnoop"), "--console", "-"],
            stdin=subprocess.PIPE, stdout=open(os.path.join(OUT, "console.log"), "w"),
            stderr=open(os.path.join(OUT, "headunit.log"), "w"))
        self.seen = 0

    def type(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()

    def events(self):
        try:
            with open(self.events_path) as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    async def wait_for(self, name, timeout=30, **fields):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            events = self.events()
            for i in range(self.seen, len(events)):
                e = events[i]
                if e.get("event") == name and all(e.get(k) == v for k, v in fields.items()):
                    self.seen = i + 1
                    return e
            await asyncio.sleep(0.05)
        raise TimeoutError(f"head unit never reported {name} {fields}")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def say(text):
    print(f"  {text}", flush=True)


async def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    sim = Simulator(on_event=lambda e: None)
    port = await sim.start(hci_port=0)
    anna = await sim.add_phone("anna", server_name="Anna-iPhone-7F3A")
    print(f"simulated phone 'anna' up; head unit controller at tcp:127.0.0.1:{port}")
    unit = HeadUnit(port)
    try:
        e = await unit.wait_for("state", state="connected")
        say(f"paired with {e['server']} (client name written to the phone: {anna.state()['paired_client']})")

        await anna.power_off()
        await unit.wait_for("state", state="remembered")
        say("phone switched Bluetooth off: head unit remembers it and waits")
        await anna.rotate_address()
        await anna.power_on()
        await unit.wait_for("state", state="connected")
        say(f"phone back under a new address ({anna.state()['address']}): reconnected by its SERVER NAME")

        await anna.unpair()
        await unit.wait_for("state", state="discover")
        say("user tapped Unpair on the phone: head unit forgot it and waits for the user")

        unit.type("scan")
        await unit.wait_for("state", state="connected")
        say("user asked to discover: paired again")
    finally:
        unit.stop()
        await sim.stop()
    print(f"done. events: {unit.events_path}\n      trace:  {os.path.join(OUT, 'trace.btsnoop')} (tshark -r)")


if __name__ == "__main__":
    asyncio.run(main())
