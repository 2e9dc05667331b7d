"""The benchmark suite: runs every measurement, prints the figures and
writes them with the machine and the date to BENCHMARKS.md.

    scripts/bench            # full: release builds, 1,000 notifications, 60 s idle -> BENCHMARKS.md
    scripts/bench --short    # CI: the same release builds, 100 notifications, 10 s idle -> out/bench/BENCHMARKS.md
    scripts/bench --side-by-side [--bin-dir DIR]
                             # only the side by side, its floor and its instructions, in one run
                             # (to compare two builds): printed and written to out/bench/side-by-side.json

Only release builds are measured, in both forms: a debug build's figures
say nothing about the firmware and would only mislead.

Figures, not tests: a missed target is reported, the command still succeeds.
It fails only when a measurement could not be made (a consumer that did not
process every notification, a replay that diverged).
"""
import argparse
import asyncio
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "Peer"))
import btsnoop_latency  # noqa: E402
import side_by_side  # noqa: E402

OUT = os.path.join(ROOT, "out", "bench")
# The head unit's own instructions per notification, and its CPU per
# notification as a multiple of the syscall floor of the same run (issue #25).
INSTRUCTIONS_TARGET = 60_000
FLOOR_TARGET = 2


def say(text):
    print(f"bench: {text}", flush=True)


def run(command, **kwargs):
    return subprocess.run(command, cwd=ROOT, check=True, text=True, capture_output=True, **kwargs).stdout


# ------------------------------------------------------------------ machine
def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    swift = run(["swift", "--version"]).strip().splitlines()[0] if shutil.which("swift") else "unknown"
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": f"{platform.system()} {platform.release()}",
            "swift": swift, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


# ------------------------------------------------------------------ builds
def build(products):
    for product in products:
        command = ["swift", "build", "--product", product, "-c", "release"]
        say(" ".join(command))
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "release")


def callgrind(command, toggle=None):
    """Instructions counted by callgrind (only inside `toggle` when given)."""
    args = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    if toggle:
        args.append(f"--toggle-collect={toggle}")
    result = subprocess.run(args + command, cwd=ROOT, capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))


# ------------------------------------------------------------------ pieces
def pipeline(bin_dir, short):
    binary = os.path.join(bin_dir, "pipeline-bench")
    n, passes = (200, 3) if short else (5000, 7)
    timed = json.loads(run([binary, "--notifications", str(n), "--passes", str(passes)]).strip().splitlines()[-1])
    n1, n2 = (20, 60) if short else (1000, 3000)
    c1 = callgrind([binary, "--notifications", str(n1), "--passes", "1"], "*measuredReplay*")
    c2 = callgrind([binary, "--notifications", str(n2), "--passes", "1"], "*measuredReplay*")
    timed["instructions_per_notification"] = round((c2 - c1) / (n2 - n1))
    timed["callgrind_n"] = [n1, n2]
    return timed


def side_by_side_instructions(binary, short):
    """The head unit's own instructions per notification in the side by side:
    callgrind over two bursts of different length, the difference divided by
    the difference (the guidance phrase tables built on the first Maps
    notification, and everything else done once, cancel out). Full runs only:
    under callgrind each burst takes a minute."""
    if short:
        return None
    counts = {}
    for n in (100, 400):
        out = os.path.join(OUT, f"callgrind-{n}")
        profile = os.path.join(OUT, f"callgrind-{n}.out")
        os.environ["BENCH_CALLGRIND"] = profile
        try:
            asyncio.run(side_by_side.run_headunit(binary, out, n, 0))
        finally:
            del os.environ["BENCH_CALLGRIND"]
        with open(profile) as f:
            counts[n] = next(int(line.split()[1]) for line in f if line.startswith("totals:"))
    return {"instructions_per_notification": round((counts[400] - counts[100]) / 300), "counts": counts}


def syscall_floor(bin_dir, short):
    """The head unit's system calls for one notification with no work
    between them (Benchmarks/SyscallFloor): the median of three runs."""
    binary = os.path.join(bin_dir, "syscall-floor")
    n = 500 if short else 3000
    runs = [json.loads(run([binary, str(n), os.path.join(OUT, "syscall-floor.log")]).strip())["us_per_notification"]
            for _ in range(3)]
    return {"us_per_notification": sorted(runs)[1], "runs": runs, "notifications": n}


def hpke(bin_dir, short):
    """NotifBridge cryptography: key activation and one envelope, timed and counted."""
    binary = os.path.join(bin_dir, "hpke-bench")
    activations, envelopes, passes = (20, 200, 3) if short else (500, 5000, 7)
    timed = json.loads(run([binary, str(activations), str(envelopes), str(passes)]).strip().splitlines()[-1])
    for name, toggle, (n1, n2) in (("activation", "*measuredActivations*", (2, 6) if short else (10, 30)),
                                   ("envelope", "*measuredEnvelopes*", (20, 60) if short else (100, 300))):
        counts = (n1, 1, 1) if name == "activation" else (1, n1, 1)
        c1 = callgrind([binary, *map(str, counts)], toggle)
        counts = (n2, 1, 1) if name == "activation" else (1, n2, 1)
        c2 = callgrind([binary, *map(str, counts)], toggle)
        timed[f"instructions_per_{name}"] = round((c2 - c1) / (n2 - n1))
    return timed


def hpke_firmware():
    """`headunit crypto-bench` of the aarch64 firmware under qemu-aarch64 (user mode), when both are there."""
    firmware_path = os.path.join(ROOT, ".build-aarch64", "headunit")
    qemu = shutil.which("qemu-aarch64-static")
    sysroot = os.path.join(ROOT, ".build-sysroot")
    if not (os.path.exists(firmware_path) and qemu and os.path.isdir(sysroot)):
        return None
    out = run([qemu, "-L", sysroot, firmware_path, "crypto-bench", "--iterations", "20", "--passes", "3"])
    return json.loads(out.strip().splitlines()[-1])


def render(bin_dir, short):
    binary = os.path.join(bin_dir, "render-bench")
    iterations = 3 if short else 300
    out = run([binary, str(iterations)])
    figures = {}
    for line in out.splitlines():
        m = re.match(r"(\S+): median ([\d.]+) ms", line)
        if m:
            figures[m.group(1)] = {"median_ms": float(m.group(2))}
        m = re.match(r"glyph cache: (\d+) bytes in (\d+) glyphs", line)
        if m:
            figures["glyph_cache"] = {"bytes": int(m.group(1)), "glyphs": int(m.group(2))}
    if not short:
        for scenario in ("full-800x480", "full-1920x1080", "partial-800x480", "partial-1920x1080"):
            base = callgrind([binary, "--only", scenario, "0"])
            with_n = callgrind([binary, "--only", scenario, "10"])
            figures[scenario]["instructions"] = round((with_n - base) / 10)
    return figures


def wrap_for_peak_rss(binary, rss_file):
    """A stand-in for the binary that runs it and writes its peak RSS (KiB) on exit."""
    wrapper = os.path.join(OUT, "headunit-peak-rss")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec {sys.executable} {os.path.join(ROOT, 'Benchmarks', 'Peer', 'peak_rss.py')} "
                f"{rss_file} {binary} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    return wrapper


def drive(bin_dir):
    """scripts/demo's drive with the benchmark's build: peak RSS and end-to-end latency."""
    demo_out = os.path.join(OUT, "demo")
    rss_file = os.path.join(OUT, "demo-peak-rss-kb")
    env = dict(os.environ, DEMO_OUT=demo_out,
               HEADUNIT_BIN=wrap_for_peak_rss(os.path.join(bin_dir, "headunit"), rss_file))
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "demo.py")], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    with open(rss_file) as f:
        memory = json.load(f)
    samples, info = btsnoop_latency.latencies(os.path.join(demo_out, "trace.btsnoop"),
                                              os.path.join(demo_out, "events.jsonl"))
    samples.sort()
    with open(os.path.join(demo_out, "events.jsonl")) as f:
        size = next((json.loads(l) for l in f if '"frame"' in l), None)
    return {"peak_rss_kb": memory["peak_kb"], "memory_kb": memory["mappings_kb"], "latency_ms": samples,
            "median_ms": samples[len(samples) // 2] if samples else None,
            "p95_ms": samples[min(len(samples) - 1, int(len(samples) * 0.95))] if samples else None, **info}


def firmware(short):
    path = os.path.join(ROOT, ".build-aarch64", "headunit")
    if not os.path.exists(path) and not short:
        say("scripts/build-aarch64 (the firmware)")
        subprocess.run([os.path.join(ROOT, "scripts", "build-aarch64")], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    if not os.path.exists(path):
        return None
    result = {"bytes": os.path.getsize(path)}
    size_tool = shutil.which("llvm-size") or shutil.which("size")
    if size_tool:
        try:
            out = run([size_tool, path]).splitlines()
            text, data, bss = (int(x) for x in out[1].split()[:3])
            result.update(text=text, data=data, bss=bss)
        except (subprocess.CalledProcessError, ValueError, IndexError):
            pass
    return result


def boot(args):
    """Power-on to first frame from image/boot-test's report."""
    report = args.boot_report or os.path.join(ROOT, "out", "image", "boot-test", "report.json")
    if args.boot_test:
        artifacts = os.path.join(OUT, "boot-test")
        command = [os.path.join(ROOT, "image", "boot-test"), "--artifacts", artifacts]
        if args.boot_image:
            command += ["--image", args.boot_image]
        say("image/boot-test")
        subprocess.run(command, cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
        report = os.path.join(artifacts, "report.json")
    if not os.path.exists(report):
        return None
    with open(report) as f:
        data = json.load(f)
    return {"first_frame_s": data.get("timings_s", {}).get("first_frame_s"), "passed": data.get("passed"),
            "firmware_memory_kb": data.get("firmware_memory_kb") or {},
            "report": os.path.relpath(report, ROOT), "ran": bool(args.boot_test),
            "image": os.path.basename(args.boot_image or "headunit-qemu-virt.img"),
            "date": datetime.datetime.fromtimestamp(os.path.getmtime(report), datetime.timezone.utc)
            .strftime("%Y-%m-%d %H:%M UTC")}


# ------------------------------------------------------------------ report
def fmt(value, digits=1):
    return "—" if value is None else f"{value:,.{digits}f}"


def hpke_rows(r):
    """The NotifBridge cryptography rows of the table."""
    out = []
    h = r.get("hpke")
    if h:
        # The thread's CPU time is the cost; wall time also counts waiting for a core on a shared machine.
        ms = h["cpu_ns_per_activation"] / 1e6
        out.append(("NotifBridge: key activation (seed → X-Wing key pair, decapsulation, HPKE key schedule, export)",
                    f"{ms:.3f} ms CPU ({h['ns_per_activation'] / 1e6:.3f} ms wall), "
                    f"{h['instructions_per_activation']:,} instructions", "≤ 1 ms",
                    "pass" if ms <= 1 else "miss", f"hpke-bench, median of {h['passes']} passes of {h['activations']:,}"))
        out.append((f"NotifBridge: one envelope decrypted (export, AES-256-GCM open of {h['envelope_bytes']:,} bytes)",
                    f"{h['cpu_ns_per_envelope'] / 1000:.1f} µs CPU ({h['ns_per_envelope'] / 1000:.1f} µs wall), "
                    f"{h['instructions_per_envelope']:,} instructions", "—", "",
                    f"hpke-bench, median of {h['passes']} passes of {h['envelopes']:,}"))
    q = r.get("hpke_firmware")
    if q:
        out.append(("NotifBridge on the aarch64 firmware under qemu-aarch64: key activation, one envelope",
                    f"{q['cpu_ns_per_activation'] / 1e6:.2f} ms, {q['cpu_ns_per_envelope'] / 1000:.0f} µs CPU", "—", "",
                    "`headunit crypto-bench` of .build-aarch64/headunit, qemu-aarch64-static (user-mode emulation)"))
    return out


def rows(r, short):
    """(figure, value, target, verdict, source) for the table."""
    out = []
    p = r["pipeline"]
    out.append(("Pipeline: instructions per notification", f"{p['instructions_per_notification']:,}",
                f"≤ {INSTRUCTIONS_TARGET:,}", "pass" if p['instructions_per_notification'] <= INSTRUCTIONS_TARGET
                else "miss", "pipeline-bench under callgrind"))
    out.append(("Pipeline: time per notification", f"{p['ns_per_notification'] / 1000:.1f} µs", "—", "",
                f"pipeline-bench, median of {p['passes']} passes of {p['notifications']:,}"))
    out += hpke_rows(r)
    for scenario in ("full-800x480", "partial-800x480", "full-1920x1080", "partial-1920x1080",
                     "full-800x480-scripts", "partial-800x480-scripts"):
        f = r["render"].get(scenario, {})
        value = f"{fmt(f.get('median_ms'), 3)} ms"
        if "instructions" in f:
            value += f", {f['instructions']:,} instructions"
        out.append((f"Render: {scenario.replace('-', ' redraw ', 1)}", value, "—", "", "render-bench"))
    d = r["drive"]
    out.append(("End to end: last Data Source fragment → frame presented",
                f"median {fmt(d['median_ms'])} ms, p95 {fmt(d['p95_ms'])} ms ({len(d['latency_ms'])} updates)",
                "—", "", "scripts/demo drive: btsnoop + `frame` events (PNG output)"))
    idle = r["side_by_side"]["headunit"]["idle"]
    if idle:
        rate = idle["wakeups"] / idle["seconds"]
        cpu_per_minute_ms = idle["cpu_s"] * 1000 * 60 / idle["seconds"]
        allowed = r["idle_timer_budget"]
        out.append((f"Idle: wake-ups over {idle['seconds']:.0f} s connected", f"{idle['wakeups']} ({rate:.2f}/s)",
                    f"none beyond protocol timers ({allowed} due)", "pass" if idle["wakeups"] <= allowed else "miss",
                    "/proc voluntary context switches"))
        out.append(("Idle: CPU per minute", f"{cpu_per_minute_ms:.2f} ms", "< 10 ms",
                    "pass" if cpu_per_minute_ms < 10 else "miss", "/proc schedstat"))
    mb = d["peak_rss_kb"] / 1024
    out.append(("Memory: peak RSS over the drive (800x480)", f"{mb:.1f} MB", "≤ 14 MB", "pass" if mb <= 14 else "miss",
                "VmHWM of the head unit"))
    fw = r["firmware"]
    out.append(("aarch64 firmware size", f"{fw['bytes']:,} bytes" + (f" (text {fw['text']:,}, data {fw['data']:,}, "
                f"bss {fw['bss']:,})" if fw and "text" in fw else "") if fw else "not built",
                "≤ 2 MiB (2,097,152 bytes, scripts/build-aarch64)",
                ("pass" if fw["bytes"] <= 2 * 1024 * 1024 else "miss") if fw else "",
                ".build-aarch64/headunit"))
    b = r["boot"]
    m = (b or {}).get("firmware_memory_kb") or {}
    if "VmHWM" in m:
        out.append(("Memory: the shipped firmware on the appliance (qemu-virt, 1280x800 DRM)",
                    f"peak {m['VmHWM'] / 1024:.1f} MB (resident {m.get('VmRSS', 0) / 1024:.1f} MB: "
                    f"{m.get('RssAnon', 0) / 1024:.1f} MB anonymous, {m.get('RssFile', 0) / 1024:.1f} MB file)",
                    "—", "", "image/boot-test: /proc/PID/status of the Embedded Swift firmware after the Maps instruction"))
    out.append(("Boot: power-on → first frame (qemu)",
                f"{b['first_frame_s']} s" if b and b.get("first_frame_s") is not None else "not measured", "—", "",
                (f"image/boot-test of {b['image']}, run by this command" if b.get("ran")
                 else f"{b['report']} ({b['date']})") if b else "image/boot-test not run"))
    s = r["side_by_side"]
    ours, peer = s["headunit"]["cpu"]["cpu_s"], s["bumble"]["cpu"]["cpu_s"]
    n = s["count"]
    ratio = peer / ours if ours else 0
    each = ours * 1e6 / n
    out.append((f"Side by side: head unit CPU for {n:,} notifications", f"{ours * 1000:.1f} ms "
                f"({each:.0f} µs each)", "≤ 100 µs each", "pass" if each <= 100 else "miss",
                "/proc schedstat of the consumer"))
    out.append((f"Side by side: Bumble AncsClient CPU for {n:,} notifications", f"{peer * 1000:.1f} ms "
                f"({peer * 1e6 / n:.0f} µs each)", "", "", "/proc schedstat of the consumer"))
    out.append(("Side by side: ratio", f"{ratio:.1f}×", "≥ 20×", "pass" if ratio >= 20 else "miss", ""))
    floor = r.get("syscall_floor")
    if floor:
        out.append(("Side by side: the head unit's system calls for one notification, alone",
                    f"{floor['us_per_notification']:.1f} µs", "—", "",
                    "syscall-floor (2 sleeps in poll, 2 reads, 2 socket writes, 1 log line; median of 3 runs)"))
        over = each / floor["us_per_notification"]
        out.append(("Side by side: head unit CPU per notification over the floor", f"{over:.1f}×",
                    f"≤ {FLOOR_TARGET}×", "pass" if over <= FLOOR_TARGET else "miss",
                    "the two rows above, measured in the same run"))
    instructions = r.get("side_by_side_instructions")
    if instructions:
        each_i = instructions['instructions_per_notification']
        out.append(("Side by side: head unit instructions per notification (user space)", f"{each_i:,}",
                    f"≤ {INSTRUCTIONS_TARGET:,}", "pass" if each_i <= INSTRUCTIONS_TARGET else "miss",
                    "callgrind over bursts of 100 and 400, the difference divided by 300"))
    h = s["headunit"]["cpu"]
    if "reads" in h:
        out.append(("Side by side: head unit per notification", f"{h['wakeups'] / n:.2f} wake-ups, {h['reads'] / n:.2f} "
                    f"reads, {h['writes'] / n:.2f} writes; kernel {h['system_s'] / max(h['ticks_s'], 1e-9):.0%} of its CPU",
                    "—", "", "/proc/PID/status (voluntary switches), /proc/PID/io (syscr, syscw), /proc/PID/stat"))
    return out


def d_memory(r):
    return r["drive"].get("memory_kb", {})


def markdown(r, short):
    m = r["machine"]
    lines = ["# Benchmarks", "",
             "Figures, not tests: `scripts/bench` measures and writes this file"
             + (" (this is a short run: fewer notifications and a shorter idle window)." if short else "."),
             "", f"- Date: {m['date']}", f"- CPU: {m['cpu']}, {m['cores']} cores", f"- Kernel: {m['kernel']}",
             f"- Swift: {m['swift']}", "- Build: release (host)", "",
             "| figure | value | target | | source |", "| --- | --- | --- | --- | --- |"]
    for figure, value, target, verdict, source in rows(r, short):
        lines.append(f"| {figure} | {value} | {target} | {verdict} | {source} |")
    s = r["side_by_side"]
    lines += ["", "## How each figure is made", ""]
    lines += [
        "- **Pipeline** (`Benchmarks/PipelineBench`): the receive path in one process — the head-unit core "
        "(`HeadUnitCore`: HCI host with H4 parsing, ACL reassembly and flow control, L2CAP, the link's GATT bearer, "
        "ANCS client, notification model, with the pairing routine and security manager it carries), the same "
        "code the firmware runs, fed pre-recorded H4 bytes: per notification a Notification Source Added, the AppIdentifier answer, "
        "the Title/Subtitle/Message/Date answer on the Data Source (ATT_MTU 247, 27-byte ACL packets, "
        f"{r['pipeline']['h4_bytes_in_per_notification']} bytes in 12 H4 packets) and the previous notification's "
        "Removed. Instructions: callgrind inside the replay only, the difference of two runs "
        f"({r['pipeline']['callgrind_n'][0]:,} and {r['pipeline']['callgrind_n'][1]:,} notifications) divided by "
        "the difference, so set-up cancels out.",
        "- **NotifBridge** (`Benchmarks/HPKEBench`, the workload of `headunit crypto-bench`): key activation is "
        "what an `activate` key packet costs the head unit: SHAKE256 of the seed, ML-KEM-768 and X25519 key "
        "pairs, the check against the phone's public key, X-Wing decapsulation of a fixed encapsulated key, the HPKE "
        "base-mode key schedule and one export; an envelope is one export from a stored exporter secret and the "
        "AES-256-GCM open of a 1 KiB blob. Instructions: callgrind inside the measured loop only, the difference "
        "of two counts divided by the difference. Time: the thread's CPU time, the cost (the target is checked on "
        "it), and wall time, which also counts waiting for a core on a shared machine. The qemu figure is "
        "user-mode emulation of the firmware on this machine, not the board's speed.",
        "- **Render** (`Benchmarks/RenderBench`): the navigation + music screen, a full redraw and a partial one "
        "(distance change); instructions per redraw from callgrind (N redraws minus none).",
        "- **End to end**: `scripts/demo`'s drive with this build; for every navigation notification shown or "
        "updated, from the timestamp of the last Data Source fragment in the btsnoop trace to the `frame` event "
        "that follows. The two clocks are aligned on the bonded reconnections (each Read Encryption Key Size "
        "answer in the trace and its `encrypted` event; of these pairs the least delayed event, since a link paired "
        "from Settings reports it some 15 ms after the answer); 1 ms resolution. The display is the PNG output, so "
        "each frame includes writing a PNG file.",
        f"- **Idle**: the head unit connected and bonded to the simulated phone, ANCS and AMS running, "
        f"{s['headunit']['idle']['seconds'] if s['headunit']['idle'] else 0:.0f} s without traffic, no display; "
        "wake-ups are voluntary context switches (each return from poll(2)), CPU from /proc/PID/task/*/schedstat. "
        "The protocol timers due in that time: the ANCS liveness probe every 15 minutes, nothing else.",
        "- **Memory**: peak resident set of the head unit (host build, PNG output at 800x480) over the drive, from "
        "/proc (VmHWM).",
        "- **Boot**: `image/boot-test`'s report: seconds from QEMU power-on to the first non-blank screendump "
        "(sampled once a second).",
        f"- **Side by side** (`Benchmarks/Peer`): a fresh simulated phone for each consumer; after pairing and once "
        f"its ANCS session runs, the phone plays `notification_burst` ({s['count']:,} Google Maps notifications, "
        "each posted, fetched, then replaced by the next). Both consumers ask the same: the AppIdentifier, the app's "
        "display name once, then Title (64), Subtitle (64), Message (256), Date. The phone recorded "
        f"{s['headunit']['burst']['text_requests']:,} text requests from the head unit and "
        f"{s['bumble']['burst']['text_requests']:,} from Bumble's client; the head unit reported "
        f"{s['headunit']['burst']['consumer_count']:,} notifications shown, Bumble's client "
        f"{s['bumble']['burst']['consumer_count']:,} fetched. CPU: the consumer process over the burst "
        "(schedstat, all threads). The head unit runs without a display here (Bumble's client draws nothing). "
        "The consumers' controller reports LE ACL buffers of 251 bytes, as controllers with Data Length Extension "
        "do, and the phone raises its data length as iPhones do, so its answers reach either host whole "
        "(the simulator's default for the tests, 27, makes 12 packets of each; `BENCH_ACL_SIZE=27` compares).",
        "- **Side by side, instructions** (full runs only): the head unit's burst under callgrind "
        "(`BENCH_CALLGRIND`, collecting over the burst alone) for 100 and for 400 notifications; the difference "
        "of the two totals divided by 300, so that what happens once (the guidance phrase tables, 4.8 million "
        "instructions on the first Maps notification) cancels out. User space only; the kernel is the next row's.",
        "- **Side by side, floor** (`Benchmarks/SyscallFloor`): a requester makes the head unit's system calls for "
        "one notification over loopback TCP (three descriptors in poll; two ATT-sized requests, each followed by "
        "a sleep and the read of its answer in one piece, as the phone sends each answer's packets together; "
        "one 500-byte line appended to a file) against a forked responder that answers after 150 µs, as the "
        "simulated phone does; the requester's CPU time per notification, median of three runs. What any "
        "consumer pays the kernel for one notification on this machine; the head unit's figure over it is its "
        "own work. Until 2026-11-27 the second answer came in two pieces 100 µs apart (a third sleep and read, "
        "41–50 µs instead of 31–34): what the head unit did while each packet woke it. The rows above that say "
        "\"3 sleeps\" were measured with that floor.",
        "- **Comparing two builds**: `Benchmarks/Peer/ab.py OLD NEW [RUNS] [NOTIFICATIONS]` runs the head unit's "
        "side by side alternately with each, so that the machine's other load falls on both alike, and prints "
        "the medians. `scripts/bench --side-by-side [--bin-dir DIR]` measures the side by side, its floor and its "
        "instructions alone, in one run, for this tree or the release build in DIR (out/bench/side-by-side.json; "
        "this file is left alone).",
    ]
    misses = [figure for figure, _, _, verdict, _ in rows(r, short) if verdict == "miss"]
    if misses:
        lines += ["", "## Targets missed, and why", ""]
    if "Memory: peak RSS over the drive (800x480)" in misses:
        top = ", ".join(f"{name} {kb / 1024:.1f} MB" for name, kb in list(d_memory(r).items())[:8])
        mem = d_memory(r)
        anon = sum(kb for name, kb in mem.items() if name in ("[anon]", "[heap]", "[stack]")) / 1024
        binary = mem.get("headunit", 0) / 1024
        code = sum(kb for name, kb in mem.items() if name == "headunit" or ".so" in name) / 1024
        total = r["drive"]["peak_rss_kb"] / 1024
        lines.append("- **Memory**: resident at the peak, by mapping: " + top + f". Code is {code:.1f} of the "
                     f"{total:.1f} MB: the head unit ({binary:.1f} MB resident: our code, the Swift standard library "
                     "and runtime, libstdc++ and libcrypto, linked in statically) and the shared libraries (libc, "
                     "HarfBuzz with GLib, FreeType). The release head unit is linked for a small resident set "
                     "(Package.swift, `headunitReleaseLinking`: the functions the drive runs placed together by a "
                     "profile, libcrypto and libstdc++ from their archives, no exported symbols, packed relocations, "
                     "no LLVM function merging; the optimisations below): a stale `headunit.order` "
                     "(`scripts/order-headunit` remakes it) costs up to 1 MB. Of the text, 1.3 MB is the standard "
                     "library's: libswiftCore.a keeps 1.6 MB of it in one `.text` section of Swift.o, placed whole, "
                     "and the 64 KiB the kernel maps around each fault cover most of it. Left: a position-dependent "
                     "program (0.35 MB less, but no address-space randomisation: not taken), identical code folding "
                     "(`--icf=all`: it would fold the runtime's C++ functions too), or the host head unit built as "
                     "Embedded Swift like the firmware (no runtime, a standard library cut to what is used). The "
                     f"anonymous memory is {anon:.1f} MB with the stack: 1.5 MB the 800x480 canvas, the PNG encoder's "
                     "buffers while a frame is written (zlib's deflate state 96 KB), about 0.6 MB the tables FreeType "
                     "and HarfBuzz copy out of the CJK font while Japanese is on screen, 0.15 MB the glyph cache. The "
                     "fonts themselves do not count: the script fonts open on first use and close when nothing on "
                     "screen was drawn with them, and faces read their files instead of mapping them (docs/FONTS.md). "
                     "The firmware that ships is the Embedded Swift build (the size above).")
    if any(m.endswith("instructions per notification") or m.endswith("instructions per notification (user space)")
           or m == "Side by side: head unit CPU per notification over the floor" for m in misses):
        lines.append(INSTRUCTIONS_MISS)
    if "Side by side: ratio" in misses:
        h = r["side_by_side"]["headunit"]["cpu"]
        n = r["side_by_side"]["count"]
        calls = f", reads {h['reads'] / n:.1f} and writes {h['writes'] / n:.1f} times" if "reads" in h else ""
        lines.append(f"- **Side by side**: per notification the head unit wakes {h['wakeups'] / n:.1f} times{calls}; "
                     f"{h['system_s'] / max(h['ticks_s'], 1e-9):.0%} of its CPU time is the kernel's (tick-sampled, "
                     "rough). " + ratio_bound(r) + SIDE_BY_SIDE_FLOOR)
    lines += ["", "## Where the head unit's time goes in the side by side", ""] + [f"- {p}" for p in PROFILE]
    if r.get("notes"):
        lines += ["", "## Optimizations", ""] + [f"- {n}" for n in r["notes"]]
    lines += carried_sections()
    return "\n".join(lines) + "\n"


def carried_sections():
    """The sections of BENCHMARKS.md another command writes, kept as they are:
    the boot timeline (image/boot-test and image/boot-timeline; docs/IMAGE.md)
    and GhostDrop's transfers (Benchmarks/Peer/ghostdrop_transfer.py)."""
    try:
        with open(os.path.join(ROOT, "BENCHMARKS.md")) as f:
            text = f.read()
    except OSError:
        return []
    kept = []
    for title in ("Boot timeline", "GhostDrop transfers"):
        m = re.search(rf"^## {title}\b.*?(?=^## |\Z)", text, re.M | re.S)
        if m:
            kept += ["", m.group(0).rstrip("\n")]
    return kept


def ratio_bound(r):
    """Why 20× is out of reach: Bumble's client's cost over 20 against the floor."""
    s, floor = r["side_by_side"], r.get("syscall_floor")
    peer = s["bumble"]["cpu"]["cpu_s"] * 1e6 / s["count"]
    if not floor:
        return ""
    return (f"The ratio cannot reach 20× against this Bumble client on this machine: its {peer:.0f} µs per "
            f"notification divided by 20 is {peer / 20:.0f} µs, and the system calls any consumer must make for one "
            f"notification cost {floor['us_per_notification']:.0f} µs here with no work between them (the floor "
            "row: two sleeps in poll, two reads, two socket writes, one log line; over several runs Bumble's "
            "client measured 390–1,200 µs and the floor 26–31 µs). ")


SIDE_BY_SIDE_FLOOR = (
    "Per notification the phone sends eight packets (the Notification Source "
    "Added and Removed, a Write Response and an answer to each of the head unit's two requests, the "
    "controller's Number Of Completed Packets for each) in three round trips: the text is asked for only once "
    "the AppIdentifier says Maps or music, so three wake-ups is the least, and packets that arrive apart (the "
    "simulator's Write Response comes 0.1–0.2 ms before its answer) add one each. Fewer wake-ups than the "
    "phone's packet groups would take a loop that waits for more, trading latency: not taken. Over the floor, "
    "the head unit's figure is its own work: the instructions below, run with caches the simulator's Python "
    "has used in between. Identical runs differ by 10–40% on this shared two-core machine (the same "
    "instructions take 60 µs of user time in one run and 150 µs in the next), so a single run's figure "
    "is a sample, not the cost: `Benchmarks/Peer/ab.py OLD NEW` alternates two builds to compare them.")

INSTRUCTIONS_MISS = (
    "- **Instructions, and CPU over the floor** (issue #25's targets, 60,000 and 2×): after the fifth round and"
    " the core's rewrite, 124,900 per notification in pipeline-bench and 129,500 in the side by side. In "
    "pipeline-bench, per notification: reference counting 30,400 (swift_retain/release and their kin), "
    "allocation, freeing and destroying 20,400, memcpy 7,000; inclusive, the core's pump 95,100 (some forty "
    "passes per notification, about three per pump, each taking and releasing every layer and link it polls: "
    "the NotifBridge stage alone costs 3,900 with no NotifBridge traffic), the GATT values routed to the ANCS "
    "client (`PhoneLink.route` → `AppleServices.valueReceived`, 25,400 with the ANCS work under it), the "
    "notification model 15,300 with the guidance reading 11,000 (two texts read per notification), the HCI host"
    " 20,100 with the H4 framer and ACL reassembly (its packets still copied four times from H4 bytes to an ATT"
    " value: the framer's packet, the ACL data, the L2CAP payload, the ATT value; about 5,000 in those copies),"
    " the L2CAP layer 6,500. In the side by side the event log's two JSON lines add about 7,600 (13,000 before "
    "the sixth round, each field name appended as a buffer of its own). What is left is spread over the "
    "layers' values and queues, each layer's output a value copied into the next one's queue: 60,000 takes "
    "handing the bytes on by slice or by ownership from the framer to the ATT value and a pump that polls only "
    "the layers that were fed. Over the floor, the CPU figure is the instructions plus the machine: wake-ups "
    "and the switches between the head unit and the simulator (analysis below).")

# Measured by hand (not by this script) on 2026-11-23: `BENCH_CALLGRIND=FILE` and `perf record` over the burst.
PROFILE = [
    "User instructions, the head unit's own (the side-by-side instructions row: callgrind over bursts of 100 and "
    "400 notifications, the difference divided by 300, so that the guidance phrase tables built on the first Maps "
    "notification, 4.8 million instructions, cancel out): 161,000 per notification, from 194,000 before the "
    "fourth round. What remains is spread thin: reference counting (swift_retain/release 27,000), malloc/free "
    "about 15,000 (about 110 allocations), memcpy 10,000 (values moved through the layers' queues), the event "
    "log's two JSON lines 13,000, reading the instruction's distance from the title 12,000 (the message, the same "
    "in every update, is read once), the core's pump passes polling each layer's queue a few thousand; no "
    "function above 2% on its own. Inclusive, per notification: the core's layers 126,000 (the HCI host with "
    "H4 framing and ACL reassembly 12,000; the GATT bearer 40,000, with the ANCS client's Data Source path "
    "23,000 and the notification model 17,000, of which reading the instruction 12,000), carrying out its "
    "output 26,000 (the event log 14,000), the driver and the loop around them 9,000.",
    "Whole process (`perf record -e cpu-clock`, 500 notifications): the kernel's share is 50–65% of the samples "
    "and the head unit's code 30–45%, but sampling at 20 kHz in this virtual machine doubles the cost of every "
    "context switch (syscall-floor measures 17 µs per round trip under perf, 9 µs without), so these shares "
    "overstate the kernel. By system call, inclusive: poll (going to sleep and being woken), the HCI writes "
    "(the loopback TCP delivery to the simulator and its wake-up run in the head unit's time), the reads, the "
    "event-log append (0.8 µs when nothing else runs, several when cold).",
    "The machine moves this figure more than the head unit does. The same build (161,400 instructions per "
    "notification, 2.8–3.2 wake-ups) used 95–107 µs per notification on a two-core AMD EPYC virtual machine "
    "(2026-11-24) and 225–316 µs on a two-core Intel Xeon one (2026-11-26), whose syscall floor is lower (23.6 µs) "
    "but on which the warm pipeline is 1.6× slower and switching between processes costs far more: under "
    "`perf record -F 5000 -g` over 1,000 notifications there, 20% of the head unit's samples are the switch back "
    "from poll (finish_task_switch) and 14% the wake-up of the simulator that each HCI write queues data for "
    "(sock_def_readable from tcp_data_queue), the hypervisor's price for two processes talking over loopback; the "
    "head unit's code is the same thin spread as on the first machine.",
]

OPTIMIZATIONS = [
    "Before → after on this machine: head unit CPU per notification in the side by side 436 → 330–380 µs "
    "(ratio 3.8× → 4.9–5.5×); pipeline 246,000 → 179,000 instructions per notification; idle wake-ups "
    "0.2/s → 0; resident memory at start 18.9 → 16.2 MB, at the peak of the drive 20.0 → 16.8 MB. What changed:",
    "Memory, the release link (2026-11-27): peak resident over the drive 20.4 → 15.6 MB (the drive run alone with "
    "each build, MB of 1,024 KiB: before, one run; after, the median of seven, 15.3–15.8; the table's 20.7 was "
    "the full run's). The head unit's mappings at the peak went 6.7 → 5.5 MB, libcrypto.so's 3.8 MB "
    "went entirely. Resident code is counted in the 64 KiB windows the kernel maps around each fault, so what "
    "matters is how many windows the code that runs is spread over: the release head unit is now linked with "
    "lld, each function in a section of its own (`-function-sections`), and the 4,400 functions that "
    "scripts/demo's drive runs (1.4 MB of code, listed in Sources/headunit/headunit.order by "
    "`scripts/order-headunit` from a callgrind run of the drive) placed together at the start of the text, "
    "instead of spread over 7.8 MB; libcrypto comes from its archive (the linker takes only the objects called "
    "into, and the loader no longer reads its 0.8 MB of symbol and relocation tables at start: the module map's "
    "autolink is turned off in release builds and SMP and HPKE link `libcrypto.a`); the program exports no "
    "symbols (the runtime's static-stdlib arguments exported all of them: 0.7 MB of tables read at start to "
    "resolve the shared libraries' symbols); relative relocations are packed (DT_RELR instead of 0.5 MB of RELA, "
    "as the firmware is linked). Step by step, one drive each: gold → lld 20.4 → 20.1, packed relocations 20.0, "
    "no exported symbols 19.3, libcrypto from its archive 18.1, the drive's functions first 15.3–15.8. The code and "
    "the golden screenshots are unchanged; the order only moves functions, and a function missing from a stale "
    "list is linked after the listed ones.",
    "Memory, second pass (2026-11-27): peak resident over the drive 15.7 → 13.7 MB (the drive alone, the release "
    "build as SwiftPM links it; before 15.6–15.8, three runs; after the median of eight, 13.6–13.9). Step by "
    "step, medians in KiB: 16,100 → libstdc++ from its archive 15,100 → no LLVM function merging and the order "
    "file remade 14,188 → a smaller deflate state for PNG frames 14,044. libstdc++ (the Swift runtime's C++ "
    "library): the runtime's static-stdlib arguments ask for `-lstdc++` before any flag a package can add, so the "
    "release link puts `Sources/headunit/link` first on the library path, where `libstdc++.so` is a linker script "
    "naming `libstdc++.a`; the linker takes only the objects the runtime calls into and the shared library's 1.0 "
    "MB of mappings went. Function merging: where two functions with the same body must keep their own addresses "
    "(protocol witnesses), LLVM moves the body into a new function without a symbol (`.text..L__unnamed_N`, 329 "
    "of them); no order file can name those, and the ones the drive runs sat scattered over the text, each "
    "pulling in the 64 KiB the kernel maps around a fault. With the pass off on the host "
    "(`-disable-llvm-merge-functions-pass`; the firmware keeps it) and `headunit.order` remade from a profile of "
    "the new build (the old list also missed 239 functions the drive now runs), the resident text outside the "
    "ordered functions went 0.9 → 0.2 MB. The PNG writer asks zlib for an 8 KB window and memLevel 7: a 96 KB "
    "deflate state instead of 256 KB, frames 2% larger, the same pixels. Resident at the peak now (KiB, one drive "
    "at 14,028): the head unit's text 3,496, its data 1,676 (0.5 MB of it relocated at start), [anon] 2,124 (the "
    "1.5 MB canvas; while Japanese is on screen the CJK font's loca and hmtx tables, 0.2 MB each, copied out by "
    "FreeType and HarfBuzz), [heap] 1,572, libc 1,552, HarfBuzz 828, FreeType 608, GLib 596, libm 392. Of the "
    "text, 1.3 MB is the standard library's: libswiftCore.a keeps 1.6 MB of it in one `.text` section of Swift.o "
    "(the rest is split into functions), placed whole, and the 170 functions the drive runs from it (50 KB) are "
    "spread over 21 of its 25 64 KiB windows. Not taken: a position-dependent program (0.35 MB less, no "
    "address-space randomisation), identical code folding (`--icf=all`: it would fold the runtime's C++ functions "
    "too). Measuring: the figure moves by up to 300 KiB between drives of the same binary, and with the page "
    "cache's state of the binary (a copy made with cp ran 0.5 MB higher than the linker's own output): compare "
    "builds by the median of several drives, each binary as the linker wrote it; `/proc/PID/smaps` and "
    "`/proc/PID/pagemap` at the peak show which 64 KiB windows of the text are resident, `perf record -e "
    "page-faults -d` which code faulted them in.",
    "Fonts (2026-11-27): peak resident over the drive 25.1 → 20.7 MB (median of three runs of each build, "
    "alternated; at start, idle screen, 20.8 → 19.3 MB). The script fonts and the configured fallbacks open on the "
    "first character asked of them and close after a frame when no text on screen was drawn with them; libthai's "
    "dictionary goes when no Thai is on screen; faces read their files with pread instead of FreeType's mapping of "
    "the whole file (docs/FONTS.md). The render bench is unchanged (partial redraw 800x480 205,280 → 204,055 "
    "instructions, full 2,878,244 → 2,872,171).",
    "Side by side, second round (user instructions of the head unit per notification, callgrind over the burst: "
    "301,000 → 174,000; CPU figures in the table): the event log builds its JSON lines as UTF-8 bytes and writes "
    "them as they are (String appends had cost 67,000 instructions per notification); release builds without "
    "dynamic exclusivity checks (`-enforce-exclusivity=unchecked`, 53,000 per notification; the Embedded firmware "
    "has none either); the event loop allocates nothing per wake-up (no list of ready descriptors, no timer lists) "
    "and keeps timers whose deadline has not moved; the head unit asks for Data Length Extension on every link "
    "(LE Set Data Length, 251 octets).",
    "Event log: a JSON string with nothing to escape is appended whole instead of one Unicode scalar at a time "
    "(`JSONLine`): it was a quarter of the head unit's instructions per notification.",
    "`FIFO`, the event and transmit queue of every layer, is inlinable: each layer gets a version specialised for "
    "its element type instead of the generic one that looked up type metadata on every push and pop "
    "(pipeline: 246,000 → about 180,000 instructions per notification).",
    "Reads go into uninitialised buffers: zeroing 4 KiB before each read cost more than the read (ten reads per "
    "notification).",
    "A stream transport (TCP, UART) that returned less than asked for is drained: the read that would only say "
    "EAGAIN is skipped, one system call less per wake-up.",
    "Without a display (`--display none`) no screen model is composed and no clock timer armed.",
    "Idle wake-ups: with no /dev/input the head unit looked for it every 5 s (0.2 wake-ups/s); it now watches "
    "the parent folder with inotify and wakes only when the folder appears.",
    "The release host build links the Swift runtime statically (`-static-stdlib`): the concurrency, regex, "
    "string-processing and dispatch libraries are no longer mapped; 2.7 MB less resident at start.",
    "PNG frames are encoded row by row straight from the canvas (libpng's classic API from a C helper that "
    "catches its longjmp): no RGB copy of each frame (1.1 MB at 800x480) and, for an unturned panel, no copy "
    "of the panel (1.5 MB). Peak resident over the drive 20.0 → 16.8 MB.",
    "Sixth round (2026-11-27), the byte path below the core (issue #25): pipeline-bench 124,902 → 99,039 "
    "instructions per notification (callgrind inside the replay, 1,000 and 3,000 notifications, the difference "
    "divided by 2,000; release builds of 83f970c and of this change, measured the same day), allocations 228 → "
    "164 and swift_retain/release 2,828 → 2,461 per notification. A received ATT value is now copied once since "
    "the read (and the framer's append), where it was copied four times (the framer's packet, the ACL data, the "
    "L2CAP payload, the ATT value). What changed, in the order measured, with the total after each step: the host "
    "reads each H4 packet where it lies in the framer's buffer (`H4Framer.nextInPlace`; an `HCIPacket` is made "
    "only for a trace) and hands the ACL data to reassembly as a slice; L2CAP hands the ATT payload on as a slice "
    "of its frame (`L2CAPEvent.att`), the bearer reads a notification's handle and value in place; our ACL "
    "packets are written once, straight from the frame (no fragments array and no copy per fragment); an ATT PDU "
    "is encoded into one allocation of its size; `FIFO` moves an element out instead of copying it (→ 115,294). A "
    "frame that came in one ACL packet goes to L2CAP as a slice of the framer's buffer (`HostEvent.l2capFrame`), "
    "the framer dropping what it handed out when the next bytes come rather than after the last packet, so the "
    "buffer is reused; `FIFO` is a ring of reused slots instead of an array emptied each time it runs dry; a "
    "service binding looks the handle of a notified value up in a short array instead of a dictionary (→ "
    "110,051). No optional tuple holding a slice on the receive path (`ACLPacket.header(of:)`, "
    "`BasicFrame.channel(of:)`): destroying such an optional goes through the standard library's generic Optional "
    "(`$sSqwxx`, 70–90 instructions each, 36 per notification); `FIFO` writes an element over its free slot's nil "
    "and moves it out without destroying the nil the same way; the framer compacts its buffer once past 4 KiB "
    "instead of on every read; `Host.receive` takes an array without the generic path (→ 102,219). `FIFO.append` "
    "consumes its element, moving it into its slot instead of copying it there and releasing the caller's copy (→ "
    "99,039). Inclusive, per notification: the host's receive path 20,080 → 10,930, L2CAP's receive 4,350 → "
    "1,180, `Host.sendL2CAP` 3,070 → 1,490, a service binding's writes 3,910 → 2,670. Left in these layers: the "
    "GATT client's request path (a procedure value, its request PDU and the outbox, about 1,300 per write) and "
    "the bearer's receive (3,300 with the value's copy). Seen across the tree: an optional of a struct or enum "
    "that holds references, destroyed where the compiler cannot tell its case (a `while let` over a poll's last "
    "nil, a failable parse), costs the generic Optional's 70–160 instructions; in this profile 21.7 million of "
    "297 million instructions, 7% (ANCS's in-flight request, AMS actions, the core's state writes, `HCIEvent?`).",
    "Fifth round (2026-11-27), the layers' own cost (issue #25): the head unit's own instructions per "
    "notification in the side by side 171,651 → 129,510 and in the pipeline 193,020 → 124,904 (d8a0f49 and the "
    "tree with this round and the core's rewrite merged, measured the same day; the layers' cuts alone measured"
    " 140,376 and 143,969, the rewrite merged on them 155,277 in the pipeline); CPU per notification in the "
    "side by side 509 → 269 µs against floors of 53.5 and 41.2 µs measured in the same runs (single runs, the "
    "first on a machine loaded by other builds: samples, not the cost; the layers' cuts alone, alternated with "
    "`Benchmarks/Peer/ab.py`, three runs of each: medians 435 → 398 µs, user time 290 → 250 µs, with a floor of"
    " 52.6 µs right after). What changed, with what each saved in pipeline-bench (callgrind, instructions per "
    "notification, inclusive): the H4 framer appends contiguous bytes in one copy (Host.receive is generic and "
    "called from another module, so the framer's append ran the standard library's unspecialised Collection "
    "append, one byte at a time: 11,600 → 2,700); ACL packets are read in place, and a frame that comes in "
    "several is given room for its whole length at its start and appended where it lies "
    "(`ConnectionTable.update`; it was copied out and back per fragment: ACLPacket(body:) 5,200 → 1,900, "
    "reassembly 3,700 → 2,600); `ByteReader` and `ByteWriter` are inlinable; `FIFO`'s empty test is inlined and"
    " the layers' poll functions (ANCS and AMS clients, notification model, NotifBridge receiver, GATT bearer "
    "events, L2CAP) are inlinable, so the core's fifty-odd polls per notification of mostly empty queues are "
    "tests instead of calls that each copied out a nil of up to 257 bytes (memcpy 17,300 → 5,400); the ANCS "
    "client looks its entries up by index instead of copying each out with its strings (six times per "
    "notification) and feeds the Data Source reassembler where it lies (a copy shared its buffers, so each "
    "fragment copied them: 5,300 → 3,200 with values taken whole from their fragment); a fetched text is "
    "counted before it is copied to be capped; the guidance reading builds its strings from UTF-8 instead of "
    "appending scalars one at a time (12,400 → 10,900); the filter tries an identifier as it is before "
    "lowercasing; the event log appends a held line to its batch without an array of its own. Tried and not "
    "taken: release builds with `-enable-cmo-everything` (the cross-module optimisation Embedded Swift does) "
    "measured 192,900 in pipeline-bench, as without; comparing identifiers byte by byte through String's UTF-8 "
    "iterator cost more than the lowercased copies (identifiers fit a String's inline storage, so lowercasing "
    "allocates nothing). After the core's rewrite was merged (155,277; the host now keeps each link's ACL queue"
    " and frame in the making in one struct): the host's ACL path changes a link's entry where it lies "
    "(`ConnectionTable.update`, and `contains` for a nil test: the optional subscript moved the entry out of "
    "its array and back in, and its getter copied it: 155,277 → 135,660); the pump walks one list of links per "
    "pass and the host's event poll is inlinable (→ 129,640); bytes that give the host no event (a fragment of "
    "a longer frame, Number Of Completed Packets: about half of a notification's reads) end without a pump "
    "pass, which would find every queue empty (→ 124,904).",
    "Sixth round (2026-11-27), the shell's share (issue #25): the head unit's own instructions per "
    "notification in the side by side 147,355 and 142,323 (two runs of the tree before it, 83f970c) → 122,214 "
    "and 123,099 (callgrind over bursts of 100 and 400, as the bench measures it; the wake-ups per "
    "notification, set by the phone's timing, move such a run by a few thousand). What changed, with what each "
    "saved, per call in the same profiles: the event log's lines are written through a pointer into one buffer "
    "the log keeps (`JSONLine` over `JSONBytes`: a field's name with its separator, quotes and colon is one "
    "room check and one copy where the array took seven appends; numbers made in a small buffer and copied "
    "once; a string with nothing to escape checked eight bytes at a time to its end and copied whole; a "
    "wake-up's lines built one after another in the same buffer and written as they are, with no array per "
    "line and no copy to add the line break): 6,560 → 3,790 instructions a line, 13,100 → 7,600 per "
    "notification, the lines byte for byte as before; the head unit asks the core for its next deadline once "
    "per wake-up instead of twice (the core asks every layer and link, 840 instructions a time; after the "
    "inputs it asks again only when the first answer was due): 8,200 → 3,100 per notification; the HCI driver "
    "reads into a buffer it keeps and hands on an array of the length read instead of allocating 4 KiB per "
    "read (beyond malloc's per-thread cache): 825 → 330 a read; the `PollSet` overwrites its entries in place "
    "instead of emptying and refilling two arrays (200 a wake-up); no walk of the empty input-device table "
    "before each wait. CPU, `Benchmarks/Peer/ab.py` with five alternated runs of each build on a machine "
    "loaded by other builds (load 17 on two cores, 5–7 wake-ups per notification instead of 3): medians 401 → "
    "434 µs per notification, the runs of each inside the other's range (322–453 and 401–438 µs): the "
    "machine's noise, not a figure of either build. System calls per notification are unchanged and at the "
    "floor's count (one read per wake-up, the HCI writes and one event-log write per wake-up with lines); none "
    "was found the shell can save without waiting for more input, which adds latency.",
    "Seventh round (2026-11-27), the core's values (issue #25): pipeline-bench 85,231 → 76,405 instructions "
    "per notification (callgrind inside the replay, 1,000 and 3,000 notifications, the difference divided by "
    "2,000; release builds of bcc9011 and of this change, measured one after the other), the generic "
    "Optional's destroys (`$sSqwxx`) 6,800 → 280 per notification. What changed, with the total after each "
    "step: the core takes ANCS's and AMS's actions and the model's events with `hasActions`/`takeAction()` "
    "(`hasEvents`/`takeEvent()`) instead of a `while let` over their polls, and the ANCS client's request in "
    "flight is a class (an optional of a large enum or struct, kept in memory, is destroyed through the "
    "generic Optional wherever the compiler cannot tell its case: at the end of each `while let`, after each "
    "`inFlight = nil`; an optional reference is released): → 83,352; the same for the host's and L2CAP's "
    "events in the pump and for the core's events in the shell's carry-out "
    "(`HeadUnitCore.hasEvents`/`takeEvent()`, as `HeadUnit.carryOut` and the bench's replay now take them): →"
    " 81,961; `FIFO.removeFirst` moves the element straight out of its slot instead of unwrapping an optional"
    " temporary (which copied the element out and destroyed the temporary the generic way): → 80,431; the "
    "core's state writes taken the same way (`hasStateWrites`/`takeStateWrite()`; the bench compared each "
    "poll with nil through `Equatable`): → 78,820; the ANCS client's table of notifications remembers the "
    "entry it handed out last (`ANCSEntryTable`: one notification's answers look the same UID up some eight "
    "times in a row, each hashed through the standard library's hasher): → 77,318; a Number Of Completed "
    "Packets event hands its pairs on as they lie in the event (`CompletedPackets`) instead of an array made "
    "for each: → 76,405. Left, per notification (the same profile): swift_retain and swift_release about "
    "12,100, malloc, free and the runtime's allocation about 7,000, memcpy 3,100; inclusive, the ANCS Data "
    "Source path 10,900 (reassembly and the text's strings), the host's receive path with the H4 framer "
    "10,000, the guidance reading 9,500, the ANCS notification copied into its actions and events (12 copies,"
    " about 1,200); the Control Point command built and encoded with its expected answer allocated and the "
    "GATT client's request path, about 1,300 each per request in the sixth round's profiles, were not "
    "changed. The core's next deadline (asked of every layer and link, 840 instructions a time) and the "
    "shell's `endOnCrash` are outside pipeline-bench and were not changed either.",
    "Fourth round (2026-11-24), the head unit's own instructions per notification 194,000 → 161,000 (the "
    "side-by-side instructions row), CPU per notification 118–122 → 103–107 µs (medians of five alternated "
    "runs of each build, 1,000 notifications, `Benchmarks/Peer/ab.py`): a navigation instruction is read once, "
    "by the notification model, and the event and the screen take that reading (the screen read it again "
    "when drawing); the reading keeps the last title and message it read (`GuidanceReader`), so a Maps update "
    "that changes only the distance reads only the title; what each layer keeps per link is a "
    "`ConnectionTable`, two small arrays, instead of a dictionary (about 40 hash lookups per notification "
    "gone); the H4 framer hands out packets one at a time instead of an array per read; the driver's and the "
    "core's timer handlers are made once instead of a closure per carry-out; the ANCS client changes its "
    "entries in place instead of copying each out and back with all its strings; JSON strings are scanned "
    "for escapes eight bytes at a time and field names copied as they are. The pipeline, measured on the build "
    "before this round and after it: 222,900 → 190,800 instructions per notification (the 136,000 of the first "
    "round was measured before the peripheral role and NotifBridge joined the core's passes).",
    "Third round (2026-11-23): the HCI driver queues what one wake-up makes the host send and writes it once all "
    "that wake-up's reads are in: on a stream (TCP, UART) everything in one write(2), on the user channel one "
    "packet per write as the kernel requires, from one buffer that keeps its storage (`HCIWriteQueue`: no array "
    "per packet). The head unit carries out what one wake-up's reads brought once, after the last of them (on "
    "the user channel, one read per packet, it did so after every packet: a driver pass each, "
    "and an event-log write for each packet that produced events). The event loop keeps its descriptors and timers in small arrays instead of dictionaries (no "
    "hashing on every wake-up and timer move) and changes POLLOUT only when it changes. The driver's transmit path and "
    "the loop's timer moves, per notification: 15,800 → 7,500 instructions (callgrind, side by side, 300 "
    "notifications); the process total moves within the "
    "run-to-run spread, because the wake-ups (set by the phone's timing, 3.0–4.3 per notification between "
    "identical runs) and the layers' 180,000 instructions are unchanged. On this burst a wake-up rarely has "
    "more than one packet to send (each ATT request waits for the answer to the one before), so writes per "
    "notification stay 3.2–3.6, at the floor of two HCI writes and two event-log lines.",
]


def side_by_side_only(args):
    """The side by side with the Bumble client, the syscall floor and the
    head unit's instructions per notification, measured in one run, for the
    build in `--bin-dir` (default: release builds of this tree). Nothing
    else runs and BENCHMARKS.md is left as it is."""
    os.makedirs(OUT, exist_ok=True)
    bin_dir = os.path.abspath(args.bin_dir) if args.bin_dir else build(["headunit", "syscall-floor"])
    binary = os.path.join(bin_dir, "headunit")
    count = args.notifications or 1000
    r = {"machine": machine(), "bin_dir": bin_dir}
    say(f"side by side with {count} notifications ({binary})")
    r["side_by_side"] = asyncio.run(side_by_side.side_by_side(binary, os.path.join(OUT, "side-by-side"), count, 0))
    for side in ("headunit", "bumble"):
        burst = r["side_by_side"][side]["burst"]
        burst.pop("uids", None)
        if burst["consumer_count"] != count or burst["text_requests"] != count:
            raise SystemExit(f"bench: {side} processed {burst['consumer_count']} of {count} notifications")
    say("the side by side's floor: the head unit's system calls alone")
    r["syscall_floor"] = syscall_floor(bin_dir, False)
    say("side by side under callgrind: the head unit's instructions per notification")
    r["side_by_side_instructions"] = side_by_side_instructions(binary, False)
    output = args.output or os.path.join(OUT, "side-by-side.json")
    with open(output, "w") as f:
        json.dump(r, f, indent=1)
    s = r["side_by_side"]
    ours, peer = s["headunit"]["cpu"]["cpu_s"], s["bumble"]["cpu"]["cpu_s"]
    floor = r["syscall_floor"]["us_per_notification"]
    print(f"  head unit: {ours * 1e6 / count:.0f} µs CPU per notification "
          f"({ours * 1e6 / count / floor:.1f}× the floor of {floor:.1f} µs), "
          f"{r['side_by_side_instructions']['instructions_per_notification']:,} instructions")
    print(f"  Bumble AncsClient: {peer * 1e6 / count:.0f} µs CPU per notification (ratio {peer / ours:.1f}×)")
    say(f"wrote {os.path.relpath(output, ROOT)}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", action="store_true", help="CI: small counts, written to out/bench/ (release builds as always)")
    parser.add_argument("--output", help="where to write the report (default BENCHMARKS.md, short: out/bench/)")
    parser.add_argument("--notifications", type=int, help="side-by-side burst (default 1000, short 100)")
    parser.add_argument("--idle-seconds", type=float, help="idle window (default 60, short 10)")
    parser.add_argument("--boot-test", action="store_true", help="run image/boot-test for the boot figure")
    parser.add_argument("--boot-image", help="image for --boot-test (default out/image/headunit-qemu-virt.img)")
    parser.add_argument("--boot-report", help="a boot-test report.json to read (default out/image/boot-test/)")
    parser.add_argument("--rewrite", action="store_true", help="only write the report again from out/bench/results.json (and --boot-report)")
    parser.add_argument("--side-by-side", action="store_true",
                        help="only the side by side, its floor and its instructions (BENCHMARKS.md untouched)")
    parser.add_argument("--bin-dir", help="with --side-by-side: the release build to measure (default: build this tree)")
    args = parser.parse_args()
    if args.side_by_side:
        return side_by_side_only(args)
    if args.rewrite:
        with open(os.path.join(OUT, "results.json")) as f:
            r = json.load(f)
        if args.boot_report:
            r["boot"] = boot(args)
        r["notes"] = OPTIMIZATIONS
        with open(args.output or os.path.join(ROOT, "BENCHMARKS.md"), "w") as f:
            f.write(markdown(r, args.short))
        return 0

    short = args.short
    output = args.output or (os.path.join(OUT, "BENCHMARKS.md") if short else os.path.join(ROOT, "BENCHMARKS.md"))
    count = args.notifications or (100 if short else 1000)
    idle_seconds = args.idle_seconds or (10 if short else 60)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    started = time.monotonic()

    r = {"machine": machine()}
    bin_dir = build(["headunit", "pipeline-bench", "render-bench", "hpke-bench", "syscall-floor"])
    say("pipeline")
    r["pipeline"] = pipeline(bin_dir, short)
    say("NotifBridge cryptography")
    r["hpke"] = hpke(bin_dir, short)
    say("render")
    r["render"] = render(bin_dir, short)
    say("drive (scripts/demo): memory, end to end")
    r["drive"] = drive(bin_dir)
    say(f"idle {idle_seconds:.0f} s, then side by side with {count} notifications")
    r["side_by_side"] = asyncio.run(side_by_side.side_by_side(os.path.join(bin_dir, "headunit"),
                                                              os.path.join(OUT, "side-by-side"), count, idle_seconds))
    for side in ("headunit", "bumble"):
        burst = r["side_by_side"][side]["burst"]
        burst.pop("uids", None)
        if burst["consumer_count"] != count or burst["text_requests"] != count:
            raise SystemExit(f"bench: {side} processed {burst['consumer_count']} of {count} notifications "
                             f"({burst['text_requests']} text requests): no honest comparison")
    say("the side by side's floor: the head unit's system calls alone")
    r["syscall_floor"] = syscall_floor(bin_dir, short)
    say("side by side under callgrind: the head unit's instructions per notification")
    r["side_by_side_instructions"] = side_by_side_instructions(os.path.join(bin_dir, "headunit"), short)
    # Protocol timers due while idle: the ANCS probe every 15 minutes.
    r["idle_timer_budget"] = int(idle_seconds // 900)
    r["firmware"] = firmware(short)
    r["hpke_firmware"] = hpke_firmware()
    r["boot"] = boot(args)
    r["notes"] = OPTIMIZATIONS
    r["seconds"] = round(time.monotonic() - started, 1)

    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(r, f, indent=1)
    text = markdown(r, short)
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with open(output, "w") as f:
        f.write(text)
    for figure, value, target, verdict, _ in rows(r, short):
        print(f"  {figure}: {value}" + (f" (target {target}: {verdict})" if verdict else ""))
    say(f"wrote {os.path.relpath(output, ROOT)} in {r['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
