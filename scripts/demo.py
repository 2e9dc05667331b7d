"""The main job: a scripted drive with the head unit against the simulated iPhone.

Starts the simulated phone (Tests/Phone), runs the host build of
`headunit run` against it with the screen as PNG frames, an event log, a
btsnoop trace and the console on a pipe, and plays a drive: pairing with the
passkey typed into the phone, Google Maps turn-by-turn guidance, music
changing tracks, chat and mail that are dropped unread, the phone leaving
and coming back. Then the other way of pairing: that phone leaves, a
second iPhone without the app pairs from Settings -> Bluetooth (pairing
mode opened with `pair` on the console, the passkey typed), shows a Maps
instruction and a song, and its NotifBridge app forwards a Google Maps
notification, encrypted end to end (docs/NOTIFBRIDGE.md). Everything lands
in out/demo/.

Part of the drive is Google Maps in Spanish, Japanese and Arabic: each
instruction must come back from the head unit with the right maneuver and
distance, and its frame is kept as out/demo/es.png, ja.png and ar.png.
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
from bumble import hci  # noqa: E402
from phone import Simulator, scenarios  # noqa: E402
from phone.notifbridge.sender import NotifBridgeSender  # noqa: E402

OUT = os.environ.get("DEMO_OUT") or os.path.join(ROOT, "out", "demo")
FRAMES = os.path.join(OUT, "frames")
HEADUNIT = os.environ.get("HEADUNIT_BIN") or os.path.join(ROOT, ".build", "debug", "headunit")
# Every wait and pause of the drive times this: a head unit run under
# valgrind (scripts/order-headunit's profile) is some fifty times slower.
SLOWDOWN = float(os.environ.get("DEMO_SLOWDOWN") or 1)


def seconds(s):
    return s * SLOWDOWN

# Google Maps on a phone set to another language: the instruction (title),
# the street (message), and what the head unit must understand of it.
FOREIGN_MAPS = (
    ("es", "Spanish", "En 300 m, gira a la izquierda", "Calle de Alcalá", "left", 300),
    ("ja", "Japanese", "500 m 先、右折です", "国道1号線", "right", 500),
    ("ar", "Arabic", "بعد 200 م، انعطف يسارًا", "شارع التحرير", "left", 200),
)


class HeadUnit:
    """`headunit run` as a child process, followed through its event log."""

    def __init__(self, port):
        self.events_path = os.path.join(OUT, "events.jsonl")
        self.process = subprocess.Popen(
            [HEADUNIT, "run", "--hci", f"tcp:127.0.0.1:{port}", "--state", os.path.join(OUT, "state"),
             "--display", f"png:{FRAMES}", "--events", self.events_path,
             "--trace", os.path.join(OUT, "trace.btsnoop"), "--console", "-"],
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
        deadline = time.monotonic() + seconds(timeout)
        while time.monotonic() < deadline:
            events = self.events()
            for i in range(self.seen, len(events)):
                e = events[i]
                if e.get("event") == name and all(e.get(k) == v for k, v in fields.items()):
                    self.seen = i + 1
                    return e
            if self.process.poll() is not None:
                raise RuntimeError("the head unit stopped; see out/demo/headunit.log")
            await asyncio.sleep(0.05)
        raise TimeoutError(f"the head unit never reported {name} {fields}")

    def snapshot(self, name):
        """Keeps the frame on screen now as out/demo/NAME.png; returns the
        numbered frame it is (latest.png is a second name for it)."""
        latest = os.path.join(FRAMES, "latest.png")
        shutil.copyfile(latest, os.path.join(OUT, f"{name}.png"))
        inode = os.stat(latest).st_ino
        for f in os.listdir(FRAMES):
            if f.startswith("frame-") and os.stat(os.path.join(FRAMES, f)).st_ino == inode:
                return os.path.join(FRAMES, f)
        return latest

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=seconds(10))


def say(text):
    print(f"  {text}", flush=True)


async def settings_pairing_and_notifbridge(sim, anna, unit):
    """The way without the app: Anna leaves, Bea's stock iPhone pairs from
    Settings -> Bluetooth, then its NotifBridge app forwards a notification
    over the same link."""
    await anna.power_off()
    await unit.wait_for("state", state="remembered")
    unit.type("pair")
    accessory = await unit.wait_for("accessory", state="pairing")
    name = accessory["name"]
    await asyncio.sleep(seconds(0.5))  # the frame with the hint is drawn with the event
    unit.snapshot("settings-pairing")
    say(f"Anna left; pairing mode (`pair` on the console): the screen says Settings -> Bluetooth -> tap {name}")

    mark = sim.event_mark()
    bea = await sim.add_phone("bea", server_app=False, apple_services="after_bonding", local_name="iPhone (Bea)")
    await bea.settings_bluetooth.open_settings(wait=seconds(10), name=name)
    link = await bea.settings_bluetooth.tap(name=name)
    passkey = (await unit.wait_for("passkey"))["passkey"]
    await asyncio.sleep(seconds(0.3))
    unit.snapshot("settings-passkey")
    await sim.wait_for("passkey_requested", phone="bea", after=mark, timeout=seconds(30))
    bea.type_passkey(passkey)
    await unit.wait_for("accessory", state="connected")
    say(f"Bea's iPhone, without the app, tapped {name} in Settings -> Bluetooth and typed passkey {passkey}: bonded")

    await sim.wait_for("ancs_session", phone="bea", state="started", after=mark, timeout=seconds(30))
    await bea.post_notification("com.apple.Maps", "location", title="In 300 m", message="Turn right onto Harbour Road")
    shown = await unit.wait_for("notification", action="shown", title="In 300 m")
    await bea.play_track("Dreams", "Fleetwood Mac", "Rumours", 257.0, player="Music", elapsed=12.0)
    await unit.wait_for("now_playing", title="Dreams")
    await unit.wait_for("frame")
    await asyncio.sleep(seconds(0.4))
    unit.snapshot("settings-navigation-and-music")
    say(f"Apple Maps over ANCS: {shown['title']}: {shown['message']} ({shown.get('maneuver')}); "
        "music over AMS: Dreams by Fleetwood Mac")

    if link.role != hci.Role.CENTRAL:
        raise RuntimeError("Bea's Settings link is not hers as central")
    sender = NotifBridgeSender(lambda event, **fields: bea.report(event, **fields), chunk_timeout=seconds(16.0),
                               receipt_timeout=seconds(20.0), ready_timeout=seconds(10.0))
    await sender.attach(link)
    generation = await sender.exchange_keys()
    posted = await sender.post("com.google.Maps", title="In 800 m", body="Turn left onto Station Road")
    if not posted["received"]:
        raise RuntimeError(f"the head unit never acknowledged the NotifBridge envelope: {posted}")
    forwarded = await unit.wait_for("notification", action="shown", title="In 800 m")
    if forwarded.get("via") != "notifbridge" or forwarded.get("kind") != "navigation":
        raise RuntimeError(f"the NotifBridge Maps notification was not shown as navigation: {forwarded}")
    await unit.wait_for("frame")
    await asyncio.sleep(seconds(0.4))
    unit.snapshot("notifbridge")
    say(f"NotifBridge: keys exchanged (X-Wing, generation {generation.describe()['exchange_id'][:8]}), "
        f"Google Maps forwarded in a {posted['envelope_bytes']}-byte envelope: {forwarded['title']}: "
        f"{forwarded['message']} ({forwarded.get('maneuver')}, {forwarded.get('distance_m')} m)")


async def drive():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    sim = Simulator(on_event=lambda e: None)
    port = await sim.start(hci_port=0)
    anna = await sim.add_phone("anna", server_name="Anna-iPhone-7F3A", local_name="iPhone (Anna)")
    print(f"simulated iPhone up; the head unit's controller is at tcp:127.0.0.1:{port}")
    unit = HeadUnit(port)
    foreign = {}
    try:
        passkey = (await unit.wait_for("passkey"))["passkey"]
        await asyncio.sleep(seconds(0.3))
        unit.snapshot("1-passkey")
        await sim.wait_for("passkey_requested", timeout=seconds(30))
        anna.type_passkey(passkey)
        paired = await unit.wait_for("paired")
        say(f"paired by {paired['method']} (passkey {passkey} typed on the phone), secure connections, MITM")
        await sim.wait_for("ancs_session", timeout=seconds(30))

        await scenarios.chat_and_mail(anna)
        await unit.wait_for("notification", action="dropped")
        await unit.wait_for("notification", action="dropped")
        say("a Messenger chat and a Mail arrived: dropped; only their app was asked for, never their text")

        await anna.play_track("Bohemian Rhapsody", "Queen", "A Night at the Opera", 355.0, player="Music", elapsed=83.0)
        await unit.wait_for("now_playing", title="Bohemian Rhapsody")
        say("music: Bohemian Rhapsody by Queen")

        maps = asyncio.create_task(scenarios.maps_navigation(anna, interval=seconds(1.0)))
        first = await unit.wait_for("notification", action="shown")
        say(f"Google Maps: {first['title']}: {first['message']}")
        await unit.wait_for("notification", action="updated")
        await asyncio.sleep(seconds(0.4))
        unit.snapshot("2-navigation-and-music")
        await anna.play_track("Under Pressure", "Queen & David Bowie", "Hot Space", 248.0, player="Music")
        await unit.wait_for("now_playing", title="Under Pressure")
        say("next track: Under Pressure")
        await maps
        await unit.wait_for("notification", action="removed")
        say("arrived: the instruction is gone")

        for code, language, title, street, maneuver, metres in FOREIGN_MAPS:
            posted = await anna.post_notification("com.google.Maps", "location", title=title, message=street)
            shown = await unit.wait_for("notification", action="shown", title=title)
            if (shown.get("kind"), shown.get("maneuver"), shown.get("distance_m")) != ("navigation", maneuver, metres):
                raise RuntimeError(f"{language} Maps instruction misread: expected navigation, {maneuver}, "
                                   f"{metres} m; the head unit said {shown}")
            await unit.wait_for("frame")
            await asyncio.sleep(seconds(0.4))
            foreign[code] = unit.snapshot(code)
            say(f"Google Maps in {language}: {title} / {street}: {maneuver}, {metres} m")
            await anna.remove_notification(posted["id"])
            await unit.wait_for("notification", action="removed")

        await anna.power_off()
        await unit.wait_for("state", state="remembered")
        await asyncio.sleep(seconds(0.4))
        unit.snapshot("3-phone-away")
        say("the phone left (Bluetooth off): the head unit waits for it")
        await anna.rotate_address()
        await anna.power_on()
        encrypted = await unit.wait_for("encrypted")
        say(f"the phone came back under a new address: recognised, encrypted with the stored bond ({encrypted['bonded']})")
        await settings_pairing_and_notifbridge(sim, anna, unit)
    finally:
        unit.stop()
        await sim.stop()
    frames = len([f for f in os.listdir(FRAMES) if f.startswith("frame-")])
    print(f"done. {frames} frames in {FRAMES} (latest.png is the last);")
    print(f"      snapshots {OUT}/1-passkey.png, 2-navigation-and-music.png, 3-phone-away.png;")
    print(f"      Google Maps in other languages {OUT}/es.png, ja.png, ar.png (frames "
          + ", ".join(os.path.relpath(path, OUT) for path in foreign.values()) + ");")
    print(f"      Settings pairing {OUT}/settings-pairing.png (the hint), settings-passkey.png, "
          "settings-navigation-and-music.png;")
    print(f"      NotifBridge {OUT}/notifbridge.png (a Google Maps notification forwarded by the app);")
    print(f"      events {unit.events_path}; btsnoop trace {OUT}/trace.btsnoop (tshark -r)")


if __name__ == "__main__":
    asyncio.run(drive())
