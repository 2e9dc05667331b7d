"""NotifBridge framing: START / payload values / END, the NBW1 wrapper of the
notification characteristic and its NBA1 acks, the readiness frame.

A frame has no length, sequence number or checksum: `--START--` resets the
buffer, `--END--` delivers it, anything else is appended while assembling.
"""

from __future__ import annotations

import os

START = b'--START--'
END = b'--END--'
READY = b'NB-RECEIVER-READY-1'
WRAPPER = b'NBW1'
ACK = b'NBA1'
CHUNK_ID_LENGTH = 16
HEADER_LENGTH = len(WRAPPER) + CHUNK_ID_LENGTH
# Payload bytes per wrapped value: 20-byte header + 200 = 220, under iOS's
# 512-byte limit for a write request whatever the MTU.
WRAPPED_PAYLOAD = 200
# The longest value one write takes (ATT's 512-byte attribute limit; long writes below it).
LONGEST_VALUE = 512
ACK_LENGTH = len(ACK) + CHUNK_ID_LENGTH


def frame_values(payload: bytes, size: int) -> list[bytes]:
    """START, the payload in pieces of at most `size` bytes, END."""
    if size < 1:
        raise ValueError('chunk size must be positive')
    return [START, *(payload[i:i + size] for i in range(0, len(payload), size)), END]


def wrap(inner: bytes, chunk_id: bytes | None = None) -> tuple[bytes, bytes]:
    """(chunk id, `NBW1` + chunk id + inner) with a random id unless given."""
    chunk_id = os.urandom(CHUNK_ID_LENGTH) if chunk_id is None else chunk_id
    if len(chunk_id) != CHUNK_ID_LENGTH:
        raise ValueError('a chunk id is 16 bytes')
    return chunk_id, WRAPPER + chunk_id + inner


def unwrap(value: bytes) -> tuple[bytes, bytes] | None:
    """(chunk id, inner) of a wrapped value, None for anything else."""
    if len(value) < HEADER_LENGTH or not value.startswith(WRAPPER):
        return None
    return value[len(WRAPPER):HEADER_LENGTH], value[HEADER_LENGTH:]


def ack(chunk_id: bytes) -> bytes:
    return ACK + chunk_id


def acked_chunk(value: bytes) -> bytes | None:
    """The chunk id of an NBA1 ack; a 20-byte value starting NBA1 is never content."""
    if len(value) == ACK_LENGTH and value.startswith(ACK):
        return value[len(ACK):]
    return None


class FrameAssembler:
    """One channel's reassembly buffer, bounded by `cap` bytes (overflow
    abandons the frame)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.buffer: bytearray | None = None
        self.overflows = 0

    def feed(self, value: bytes) -> bytes | None:
        """The completed frame when `value` ends one, else None."""
        if value == START:
            self.buffer = bytearray()
            return None
        if value == END:
            frame, self.buffer = self.buffer, None
            return bytes(frame) if frame is not None else None
        if self.buffer is None:
            return None
        if len(self.buffer) + len(value) > self.cap:
            self.buffer = None
            self.overflows += 1
            return None
        self.buffer += value
        return None

    def reset(self) -> None:
        self.buffer = None
