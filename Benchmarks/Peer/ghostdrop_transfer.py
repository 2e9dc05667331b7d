"""GhostDrop transfer figures: one file from the simulated phone to the head
unit over the L2CAP channel, then the same file over GhostDrop's GATT
service, on one bonded link. Prints, for each transport, the LE data PDUs
the two controllers exchanged (counted on the simulated radio), the air
time and air bytes they take at the simulator's link parameters, the
payload rate and share that gives, the wall-clock rate in the simulator
(which does not pace the radio: a host-bound figure), and the head unit's
CPU time per MiB received (/proc schedstat of the process, every thread).

    .venv/bin/python Benchmarks/Peer/ghostdrop_transfer.py [--binary .build/release/headunit] [--size 1048576]

The air model, per LE data PDU of n payload octets on the LE 1M PHY of an
encrypted link: preamble 1 + access address 4 + header 2 + n + MIC 4 +
CRC 3 bytes at 1 µs a bit, T_IFS 150 µs, answered by the peer's empty PDU
(10 bytes, 80 µs) and T_IFS again, PDUs back to back within connection
events (no event gaps or per-event limits: a ceiling). The payload is the
file's bytes; everything else on air (GHST headers and JSON, base64, GCM
tags, GD headers, ATT/L2CAP headers, link-layer framing, the handshake,
acks, empty PDUs) is overhead.
"""
import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Phone"))
sys.path.insert(0, HERE)
from phone import Simulator  # noqa: E402
from phone.ghostdrop import GhostSender  # noqa: E402
from phone.ghostdrop_commands import pattern  # noqa: E402
from phone.ghostdrop_gatt import send_file_over_gatt  # noqa: E402
from phone.ghostdrop_l2cap import send_file  # noqa: E402
import proc_stats  # noqa: E402
from side_by_side import Failure, jsonl, pair, poll, shut_down  # noqa: E402

# LE data PDUs of up to 251 octets (Data Length Extension, as iPhones use it).
ACL_SIZE = 251
FRAMING_BYTES = 1 + 4 + 2 + 4 + 3
EMPTY_PDU_BYTES = 1 + 4 + 2 + 3
T_IFS_US = 150


class RadioCounter:
    """Wraps the simulated link's ACL delivery: every LE data PDU, by sender."""

    def __init__(self, link, head_unit_controller):
        self.head_unit = head_unit_controller
        self.reset()
        original = link.send_acl_data

        def counted(sender, destination, transport, data):
            key = "to_phone" if sender is self.head_unit else "to_head_unit"
            self.pdus[key] += 1
            self.octets[key] += len(data)
            return original(sender, destination, transport, data)

        link.send_acl_data = counted

    def reset(self):
        self.pdus = {"to_phone": 0, "to_head_unit": 0}
        self.octets = {"to_phone": 0, "to_head_unit": 0}

    def air(self):
        pdus = sum(self.pdus.values())
        octets = sum(self.octets.values())
        air_bytes = octets + pdus * (FRAMING_BYTES + EMPTY_PDU_BYTES)
        air_us = air_bytes * 8 + pdus * 2 * T_IFS_US
        return pdus, octets, air_bytes, air_us


def bundle_shaped(size):
    """What the head unit takes over GhostDrop (docs/UPDATES.md): a bundle's
    16-byte header (magic, format 1, no flags, a 64-byte manifest) before the
    pattern. The signature is checked only by the image's installer, which
    the host has not: the file is received whole, then left."""
    header = b"NNBUNDLE" + (1).to_bytes(2, "little") + bytes(2) + (64).to_bytes(4, "little")
    return header + pattern(size - len(header))


async def transfer(kind, sim, phone, process, events_path, spsm, size, filename, stdin):
    connection = list(phone.connections.values())[0]
    data = bundle_shaped(size) if filename.endswith(".hubundle") else pattern(size)
    sender = GhostSender(data, filename, "application/octet-stream")
    mark = len(jsonl(events_path))

    async def confirm_on_the_head_unit():
        await poll(lambda: any(e.get("event") == "ghostdrop" and e.get("state") == "code"
                               for e in jsonl(events_path)[mark:]), 30, "the transfer code", process)
        stdin.write(b"confirm\n")
        stdin.flush()

    confirmer = asyncio.get_running_loop().create_task(confirm_on_the_head_unit())
    sim.radio.reset()
    before = proc_stats.snapshot(process.pid)
    started = time.monotonic()
    if kind == "l2cap":
        result = await send_file(connection, spsm, sender, resume_wait=1.0, timeout=60)
    else:
        result = await send_file_over_gatt(connection, sender, resume_wait=1.0, timeout=60)
    await poll(lambda: any(e.get("event") == "ghostdrop" and e.get("state") in ("complete", "cancelled")
                           for e in jsonl(events_path)[mark:]), 60, "the head unit's end of the transfer", process)
    wall = time.monotonic() - started
    used = proc_stats.delta(before, proc_stats.snapshot(process.pid))
    await confirmer
    if not result.completed:
        raise Failure(f"{kind}: not completed: {result}")
    pdus, octets, air_bytes, air_us = sim.radio.air()
    # The data frames alone (GHST header, JSON, base64 of nonce, ciphertext and tag).
    frame_bytes = sum(len(sender.chunk(sequence)) for sequence in range(sender.chunk_count))
    return {
        "data_frame_bytes": frame_bytes, "payload_share_of_data_frames": size / frame_bytes,
        "transport": kind, "file_bytes": size, "pdus": dict(sim.radio.pdus), "pdu_octets": dict(sim.radio.octets),
        "air_bytes": air_bytes, "air_seconds": air_us / 1e6,
        "payload_share": size / air_bytes,
        "payload_bytes_per_second_air": size / (air_us / 1e6),
        "wall_seconds": wall, "payload_bytes_per_second_simulator": size / wall,
        "head_unit_cpu_ms": used["cpu_s"] * 1000, "head_unit_cpu_ms_per_mib": used["cpu_s"] * 1000 / (size / 1048576),
        "retransmitted": getattr(result, "retransmitted", []),
    }


async def main(args):
    out = args.out
    os.makedirs(out, exist_ok=True)
    events_path = os.path.join(out, "events.jsonl")
    if os.path.exists(events_path):
        os.remove(events_path)
    sim = Simulator(acl_size=ACL_SIZE)
    port = await sim.start(0)
    sim.radio = RadioCounter(sim.link, sim.controller)
    anna = await sim.add_phone("anna", server_name="Anna-iPhone-7F3A", local_name="iPhone (Anna)")
    state = os.path.join(out, "state")
    subprocess.run(["rm", "-rf", state])
    log_path = os.path.join(out, "headunit.log")
    process = subprocess.Popen(
        [args.binary, "run", "--hci", f"tcp:127.0.0.1:{port}", "--state", state, "--display", "none",
         "--events", events_path, "--config", "/dev/null", "--console", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=open(log_path, "w"))
    try:
        await pair(sim, anna, events_path, process)

        def published():
            match = re.search(r"SPSM 0x([0-9A-Fa-f]{4}) published for GhostDrop", open(log_path).read())
            return int(match.group(1), 16) if match else None

        spsm = await poll(published, 20, "GhostDrop's SPSM", process)
        connection = list(anna.connections.values())[0]
        link_state = next(iter(sim.controller.link_states.values()), None)
        parameters = {
            "phy": "LE 1M", "ll_data_octets": ACL_SIZE, "encrypted": True, "att_mtu": connection.att_mtu,
            "connection_interval_ms": link_state.interval * 1.25 if link_state else None,
            "coc_mtu": 2048, "coc_mps": 247, "chunk_bytes": 180,
        }
        results = []
        for kind in ("l2cap", "gatt"):
            results.append(await transfer(kind, sim, anna, process, events_path, spsm, args.size, args.filename,
                                          process.stdin))
            await asyncio.sleep(1.0)
        return {"parameters": parameters, "results": results}
    finally:
        await shut_down(process, sim)


def report(figures):
    p = figures["parameters"]
    print(f"link: {p['phy']}, LL data PDUs up to {p['ll_data_octets']} octets, encrypted, "
          f"connection interval {p['connection_interval_ms']} ms, ATT_MTU {p['att_mtu']}, "
          f"channel MTU {p['coc_mtu']} / MPS {p['coc_mps']}, chunks of {p['chunk_bytes']} bytes")
    for r in figures["results"]:
        print(f"{r['transport']:>5}: {r['file_bytes']:,} file bytes; {sum(r['pdus'].values()):,} LE data PDUs "
              f"({r['pdus']['to_head_unit']:,} to the head unit, {r['pdus']['to_phone']:,} back); "
              f"air {r['air_bytes']:,} bytes, {r['air_seconds']:.2f} s; "
              f"payload share {r['payload_share'] * 100:.1f}% (of the data frames alone "
              f"{r['payload_share_of_data_frames'] * 100:.1f}%); "
              f"payload {r['payload_bytes_per_second_air'] / 1000:.1f} kB/s on air (ceiling), "
              f"{r['payload_bytes_per_second_simulator'] / 1000:.1f} kB/s in the simulator ({r['wall_seconds']:.2f} s); "
              f"head unit CPU {r['head_unit_cpu_ms']:.0f} ms, {r['head_unit_cpu_ms_per_mib']:.0f} ms per MiB; "
              f"retransmitted {len(r['retransmitted'])}")
    print(json.dumps(figures))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "headunit"))
    parser.add_argument("--size", type=int, default=1048576)
    parser.add_argument("--filename", default="bench.hubundle",
                        help="the name the phone sends the file under (one the head unit accepts)")
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "ghostdrop-bench"))
    report(asyncio.run(main(parser.parse_args())))
