"""End-to-end latency of a drive: from the last Data Source fragment of an
ANCS answer at the HCI transport (btsnoop timestamps) to the frame that shows
it (the head unit's `frame` events).

The btsnoop trace has wall-clock timestamps, the event log milliseconds since
start-up. One moment is in both: the head unit reports `encrypted` for a
bonded reconnection as soon as the controller answers Read Encryption Key
Size. Each such Command Complete in the trace and its `encrypted` event give
the offset between the two clocks; an event can only come after its answer,
and sometimes comes later (a link paired from Settings reports `encrypted`
once the phone's own packets of that moment are handled, up to some 15 ms
later in the simulator), so the pair that gives the largest offset is the
least delayed and is taken (error: the event log's 1 ms resolution plus the
sub-millisecond handling).
"""
import json
import struct

BTSNOOP_EPOCH_DELTA_US = 0x00DCDDB30F2F8000  # 0000-01-01 to 1970-01-01
DATA_SOURCE_UUID = bytes.fromhex("22EAC6E924D64BB5BE44B36ACE7C7BFB")[::-1]
READ_ENCRYPTION_KEY_SIZE = 0x1408


def records(path):
    """(unix microseconds, received, H4 bytes) for each btsnoop record."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"btsnoop\0":
        raise ValueError(f"{path}: not a btsnoop file")
    offset = 16
    while offset + 24 <= len(data):
        _orig, incl, flags, _drops, ts = struct.unpack_from(">IIIIq", data, offset)
        offset += 24
        yield ts - BTSNOOP_EPOCH_DELTA_US, bool(flags & 1), data[offset:offset + incl]
        offset += incl


def inbound_att(path):
    """(time, kind, detail) for the moments that matter: complete inbound ATT
    PDUs (time of their last ACL fragment) and Read Encryption Key Size answers."""
    partial = {}
    for t, received, packet in records(path):
        if not received or not packet:
            continue
        if packet[0] == 0x04 and len(packet) >= 7 and packet[1] == 0x0E:
            opcode = struct.unpack_from("<H", packet, 4)[0]
            if opcode == READ_ENCRYPTION_KEY_SIZE and packet[6] == 0:
                yield t, "key_size", None
        elif packet[0] == 0x02 and len(packet) >= 5:
            handle_flags, length = struct.unpack_from("<HH", packet, 1)
            handle, pb = handle_flags & 0x0FFF, handle_flags >> 12 & 3
            body = packet[5:5 + length]
            if pb == 0b01:
                if handle not in partial:
                    continue
                partial[handle] += body
            else:
                partial[handle] = bytearray(body)
            frame = partial[handle]
            if len(frame) < 4 or len(frame) < 4 + struct.unpack_from("<H", frame, 0)[0]:
                continue
            del partial[handle]
            if struct.unpack_from("<H", frame, 2)[0] == 0x0004:
                yield t, "att", bytes(frame[4:])


def data_source_handles(pdus):
    """Value handles of the ANCS Data Source, from Read By Type responses."""
    handles = set()
    for pdu in pdus:
        if len(pdu) >= 2 and pdu[0] == 0x09 and pdu[1] == 21:
            for i in range(2, len(pdu) - 20, 21):
                entry = pdu[i:i + 21]
                if entry[5:21] == DATA_SOURCE_UUID:
                    handles.add(struct.unpack_from("<H", entry, 3)[0])
    return handles


def latencies(trace_path, events_path):
    """Milliseconds from the last Data Source fragment to the frame, for each
    notification shown or updated; plus how the clocks were aligned."""
    moments = list(inbound_att(trace_path))
    ds = data_source_handles(pdu for _, kind, pdu in moments if kind == "att")
    ds_done = [t for t, kind, pdu in moments
               if kind == "att" and len(pdu) >= 3 and pdu[0] == 0x1B and struct.unpack_from("<H", pdu, 1)[0] in ds]
    key_sizes = [t for t, kind, _ in moments if kind == "key_size"]
    with open(events_path) as f:
        events = [json.loads(line) for line in f if line.strip()]
    encrypted = [e["t_ms"] for e in events if e.get("event") == "encrypted"]
    if not key_sizes or not encrypted or not ds_done:
        raise ValueError("the drive has no encrypted link or no Data Source traffic to measure")
    # Event-log time -> unix microseconds. The answers and the events pair up
    # in order when the trace covers the whole run; else only the last two
    # are known to belong together.
    pairs = list(zip(key_sizes, encrypted)) if len(key_sizes) == len(encrypted) else [(key_sizes[-1], encrypted[-1])]
    offset_us = max(k - e * 1000 for k, e in pairs)
    frames = [e["t_ms"] for e in events if e.get("event") == "frame"]
    shown = [e["t_ms"] for e in events
             if e.get("event") == "notification" and e.get("action") in ("shown", "updated")]
    samples = []
    previous = None
    for t_ms in shown:
        t_us = t_ms * 1000 + offset_us
        # The answer that completed this notification: the last Data Source
        # PDU before the event (allowing for the event log's rounding down).
        candidates = [d for d in ds_done if d <= t_us + 1000 and (previous is None or d > previous)]
        frame = next((f for f in frames if f >= t_ms), None)
        if not candidates or frame is None:
            continue
        last = candidates[-1]
        previous = last
        samples.append(max(0.0, (frame * 1000 + offset_us + 500 - last) / 1000))
    return samples, {"data_source_handles": sorted(ds), "anchors": len(key_sizes)}
