"""The same notifications from the same simulated phone to two consumers:
the head unit (`headunit run`) and Bumble's ANCS client
(bumble_ancs_consumer.py). Each consumer gets a fresh simulator and phone,
connects, pairs, and once its ANCS session runs, the phone plays
`notification_burst`: N navigation notifications, each posted, waited for
until the consumer has fetched its text, then replaced by the next. The CPU
time of the consumer's process over the burst is measured from /proc.

For the head unit the quiet minute comes first: connected, session running,
no traffic; its wake-ups and CPU time are the idle figures.
"""
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Phone"))
sys.path.insert(0, HERE)
from phone import Simulator  # noqa: E402
from phone.scenarios import notification_burst  # noqa: E402
import proc_stats  # noqa: E402

TEXT_ATTRIBUTES = ["title", "subtitle", "message", "date"]

# The consumer's controller reports LE ACL buffers of 251 bytes, as controllers
# with Data Length Extension do, so a link-layer PDU of up to 251 octets (what
# the phone sends once it has raised the data length, as iPhones do) reaches
# the host in one HCI packet. The simulator's default (27) is kept for the
# tests: it exercises reassembly. BENCH_ACL_SIZE overrides it, to compare.
ACL_SIZE = int(os.environ.get("BENCH_ACL_SIZE", "251"))

# BENCH_PIN=1 runs the simulated phone (this process: the simulator runs in
# it) and the consumer on one CPU, as the syscall floor's requester and
# responder run (Benchmarks/SyscallFloor: the scheduler keeps two processes
# that wake each other on one core). Left to the scheduler, the busy
# simulator and the consumer sit on the two cores, and every wake-up of one
# by the other crosses cores: in this virtual machine that costs the floor's
# loop three times as much (44 -> 123-160 µs per notification, 2026-11-27).
# BENCH_PIN=2 puts them on two CPUs (the phone on the first, the consumer on
# the last), as the floor's BENCH_PIN=2 does: every wake-up crosses cores.
PINNING = os.environ.get("BENCH_PIN", "")
PINNED = PINNING in ("1", "2")
CONSUMER_CPU = max(os.sched_getaffinity(0))
PHONE_CPU = CONSUMER_CPU if PINNING == "1" else min(os.sched_getaffinity(0))


def pin_consumer():
    if PINNED:
        os.sched_setaffinity(0, {CONSUMER_CPU})


class PhoneOnConsumerCPU:
    """The simulator's process on its CPU (the consumer's with BENCH_PIN=1,
    another with BENCH_PIN=2) while a consumer runs."""

    def __enter__(self):
        self.saved = os.sched_getaffinity(0)
        if PINNED:
            os.sched_setaffinity(0, {PHONE_CPU})

    def __exit__(self, *exc):
        os.sched_setaffinity(0, self.saved)


class Failure(Exception):
    pass


def jsonl(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


async def poll(condition, timeout, what, process=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if process is not None and process.poll() is not None:
            raise Failure(f"{what}: the consumer stopped (status {process.returncode})")
        await asyncio.sleep(0.05)
    raise Failure(f"{what}: not within {timeout} s")


async def burst(sim, phone, count, consumer_count, process):
    """Plays the burst; returns the phone-side record of it."""
    uids = []
    since = [sim.event_mark()]

    async def fetched(posted):
        # The phone answered the consumer's text request for this notification.
        request = await sim.wait_for("ancs_request", timeout=30, after=since[0], uid=posted["uid"],
                                     attributes=TEXT_ATTRIBUTES)
        if request.get("result") != "ok":
            raise Failure(f"text request for uid {posted['uid']} answered {request.get('result')}")
        uids.append(posted["uid"])

    await notification_burst(phone, count=count, settle=fetched)
    await poll(lambda: consumer_count(set(uids)) >= count, 30, "every notification fetched", process)
    await asyncio.sleep(0.3)  # the last removal reaches the consumer
    requests = [e for e in sim.events[since[0]:] if e.get("event") == "ancs_request"]
    return {
        "uids": uids,
        "text_requests": sum(1 for e in requests if e.get("attributes") == TEXT_ATTRIBUTES),
        "app_requests": sum(1 for e in requests if e.get("attributes") == ["app_identifier"]),
        "responses": sum(1 for e in sim.events[since[0]:] if e.get("event") == "ancs_response_sent"),
        "errors": sum(1 for e in requests if e.get("result") != "ok"),
    }


async def measured_burst(sim, phone, count, consumer_count, process):
    """The burst with the consumer's CPU time over it, and its own count."""
    before = proc_stats.snapshot(process.pid)
    record = await burst(sim, phone, count, consumer_count, process)
    used = proc_stats.delta(before, proc_stats.snapshot(process.pid))
    record["consumer_count"] = consumer_count(set(record["uids"]))
    return record, used


async def shut_down(process, sim):
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    await sim.stop()


async def pair(sim, phone, events_path, process):
    """The head unit found the phone: the passkey it shows typed on the
    phone, and ANCS running (AMS, the phone's clock and the first probe
    given two seconds)."""
    passkey = await poll(lambda: next((e["passkey"] for e in jsonl(events_path) if e.get("event") == "passkey"),
                                      None), 60, "passkey shown", process)
    await sim.wait_for("passkey_requested", timeout=30)
    phone.type_passkey(passkey)
    await sim.wait_for("ancs_session", timeout=30, state="started")
    await asyncio.sleep(2.0)


async def run_headunit(binary, out, count, idle_seconds):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    events_path = os.path.join(out, "events.jsonl")
    sim = Simulator(acl_size=ACL_SIZE)
    port = await sim.start(0)
    anna = await sim.add_phone("anna", server_name="Anna-iPhone-7F3A", local_name="iPhone (Anna)")
    # Profiling aid: BENCH_CALLGRIND=FILE runs the head unit under callgrind,
    # collecting only over the burst (its CPU figures are then meaningless).
    profile = os.environ.get("BENCH_CALLGRIND")
    wrapper = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={profile}"] if profile else []
    process = subprocess.Popen(
        wrapper + [binary, "run", "--hci", f"tcp:127.0.0.1:{port}", "--state", os.path.join(out, "state"),
         "--display", "none", "--events", events_path, "--config", "/dev/null"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(os.path.join(out, "headunit.log"), "w"),
        preexec_fn=pin_consumer)
    try:
        await pair(sim, anna, events_path, process)
        idle = None
        if idle_seconds:
            mark = sim.event_mark()
            before = proc_stats.snapshot(process.pid)
            await asyncio.sleep(idle_seconds)
            idle = proc_stats.delta(before, proc_stats.snapshot(process.pid))
            idle["seconds"] = idle_seconds
            idle["phone_events"] = len(sim.events) - mark

        def shown(uids):
            return sum(1 for e in jsonl(events_path)
                       if e.get("event") == "notification" and e.get("action") == "shown" and e.get("uid") in uids)

        tracer = None
        if os.environ.get("BENCH_STRACE"):
            # Profiling aid: the head unit's system calls over the burst.
            tracer = subprocess.Popen(["strace", "-c", "-f", "-p", str(process.pid), "-o", os.environ["BENCH_STRACE"]])
            await asyncio.sleep(1.0)
        if profile:
            subprocess.run(["callgrind_control", "--instr=on", str(process.pid)], check=True, capture_output=True)
        record, used = await measured_burst(sim, anna, count, shown, process)
        if profile:
            subprocess.run(["callgrind_control", "--instr=off", str(process.pid)], check=True, capture_output=True)
        if tracer is not None:
            tracer.send_signal(2)
            tracer.wait()
        record["peak_rss_kb"] = proc_stats.peak_rss_kb(process.pid)
        return {"burst": record, "cpu": used, "idle": idle}
    finally:
        await shut_down(process, sim)


async def run_bumble(out, count):
    os.makedirs(out, exist_ok=True)
    sim = Simulator(acl_size=ACL_SIZE)
    port = await sim.start(0)
    anna = await sim.add_phone("anna", server_name="Anna-iPhone-7F3A", local_name="iPhone (Anna)")
    lines_path = os.path.join(out, "bumble-consumer.jsonl")
    process = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "bumble_ancs_consumer.py"), "--hci", f"tcp-client:127.0.0.1:{port}",
         "--phone", anna.address],
        stdin=subprocess.DEVNULL, stdout=open(lines_path, "w"), stderr=open(os.path.join(out, "bumble.log"), "w"),
        preexec_fn=pin_consumer)
    try:
        await poll(lambda: any(e.get("event") == "started" for e in jsonl(lines_path)), 60, "Bumble ANCS started",
                   process)
        await sim.wait_for("ancs_session", timeout=30, state="started")
        await asyncio.sleep(2.0)

        def fetched(uids):
            return sum(1 for e in jsonl(lines_path) if e.get("event") == "notification" and e.get("uid") in uids)

        record, used = await measured_burst(sim, anna, count, fetched, process)
        return {"burst": record, "cpu": used}
    finally:
        await shut_down(process, sim)


async def side_by_side(binary, out, count, idle_seconds):
    with PhoneOnConsumerCPU():
        ours = await run_headunit(binary, os.path.join(out, "headunit"), count, idle_seconds)
        peer = await run_bumble(os.path.join(out, "bumble"), count)
    return {"headunit": ours, "bumble": peer, "count": count, "pinned": PINNING or "no"}


if __name__ == "__main__":
    binary, out, count, idle = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    result = asyncio.run(side_by_side(binary, out, count, idle))
    for side in ("headunit", "bumble"):
        result[side]["burst"].pop("uids")
    print(json.dumps(result, indent=1))
