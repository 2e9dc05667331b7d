"""The GhostDrop sender over GATT (the fallback when the phone does not use
the L2CAP channel), written from the public GhostDrop source
(Transport/GATTTransport.swift, Transport/GATTSlidingWindow.swift,
BLE/BLECentralActor.swift), not from the head unit's receiver.

    result = await send_file_over_gatt(connection, GhostSender(data, 'update.bundle'))

What the reference does and this follows:
- the central finds the service, subscribes to notifications on data and
  control, and takes `maximumWriteValueLength(for: .withoutResponse)`
  (ATT_MTU - 3) as the packet size;
- each frame is cut into `GD` values (ghostdrop.gatt_fragments) under a fresh
  frame ID; data frames (`dataPayload`) go as Write Without Response on data,
  every other frame as Write (with response) on control, flagged control;
- the receiver's frames come back as notifications on data, joined by frame ID;
- a sliding window of 32 data frames in flight: a chunk is sent only while
  fewer than 32 are unacknowledged; an `ack` drops every sequence up to
  `cumulativeSequence` and retransmits each in-flight sequence its NACK bitmap
  names (`cumulativeSequence + 1 + bit`) at once; every 200 ms the frames in
  flight for 2 s are retransmitted. A retransmission is the same encoded frame
  under a new frame ID.

`drop` names chunk sequences whose first transmission loses one fragment (its
last): the receiver never sees that frame whole and must NACK it or wait for
the retransmit timer. `stop_after` N: stop once N chunks are acknowledged and
leave the session unfinished (the link stays up; the next `hello` on it
starts a new session that may resume).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable

from bumble.device import Peer

from phone.ghostdrop import (CAPABILITIES_UUID, CONTROL_UUID, DATA_UUID, KINDS, SERVICE_UUID, Cancelled, GattJoiner,
                             GhostSender, gatt_fragments)

WINDOW = 32
RETRY_INTERVAL = 0.2
RETRY_TIMEOUT = 2.0


@dataclass
class InFlight:
    frame: bytes
    sent_at: float
    retries: int = 0


@dataclass
class SlidingWindow:
    """GATTSlidingWindow: data frames in flight by sequence."""

    size: int = WINDOW
    inflight: dict[int, InFlight] = field(default_factory=dict)

    def can_send(self, sequence: int) -> bool:
        return sequence in self.inflight or len(self.inflight) < self.size

    def mark_sent(self, sequence: int, frame: bytes, now: float) -> None:
        previous = self.inflight.get(sequence)
        self.inflight[sequence] = InFlight(frame, now, previous.retries if previous else 0)

    def process_ack(self, cumulative: int, nack_bitmap: int) -> list[int]:
        """Drops what the ack covers; the sequences its NACK bits ask for again."""
        for sequence in [s for s in self.inflight if s <= cumulative]:
            del self.inflight[sequence]
        return sorted(cumulative + 1 + bit for bit in range(64)
                      if nack_bitmap >> bit & 1 and cumulative + 1 + bit in self.inflight)

    def timed_out(self, now: float, timeout: float = RETRY_TIMEOUT) -> list[int]:
        return sorted(s for s, f in self.inflight.items() if now - f.sent_at >= timeout)

    def mark_retransmitted(self, sequence: int, now: float) -> None:
        if sequence in self.inflight:
            self.inflight[sequence].sent_at = now
            self.inflight[sequence].retries += 1


@dataclass
class GattResult:
    completed: bool
    sas: str | None
    resumed_from: int
    cancel_reason: str | None = None
    capabilities: bytes = b''
    retransmitted: list[int] = field(default_factory=list)
    nacked: list[int] = field(default_factory=list)
    packet_size: int = 0


class GattLink:
    """The phone's end of GhostDrop's characteristics on one connection."""

    def __init__(self, connection) -> None:
        self.peer = Peer(connection)
        self.joiner = GattJoiner()
        self.next_frame_id = 1
        self.on_frame: Callable[[bytes], None] = lambda frame: None

    async def open(self, mtu: int = 247) -> bytes:
        """Finds the service, subscribes, asks for the MTU; the capabilities value."""
        try:
            await self.peer.request_mtu(mtu)
        except Exception:  # the head unit may have exchanged already
            pass
        services = await self.peer.discover_service(SERVICE_UUID)
        if not services:
            raise Cancelled('no GhostDrop service')
        characteristics = await services[0].discover_characteristics()
        by_uuid = {str(c.uuid).upper(): c for c in characteristics}
        self.data, self.control = by_uuid[DATA_UUID], by_uuid[CONTROL_UUID]
        await self.data.discover_descriptors()
        await self.control.discover_descriptors()
        await self.data.subscribe(self._notified)
        await self.control.subscribe(self._notified)
        capabilities = by_uuid.get(CAPABILITIES_UUID)
        return bytes(await capabilities.read_value()) if capabilities else b''

    async def close(self) -> None:
        """Stops taking notifications (a later session subscribes afresh)."""
        for characteristic in (getattr(self, 'data', None), getattr(self, 'control', None)):
            if characteristic is not None:
                try:
                    await characteristic.unsubscribe(self._notified)
                except Exception:  # the link may be gone
                    pass

    @property
    def packet_size(self) -> int:
        return self.peer.connection.att_mtu - 3

    def _notified(self, value: bytes) -> None:
        frame = self.joiner.feed(bytes(value))
        if frame is not None:
            self.on_frame(frame)

    def _fragments(self, frame: bytes, control: bool) -> list[bytes]:
        frame_id = self.next_frame_id
        self.next_frame_id = self.next_frame_id + 1 if self.next_frame_id < 0xFFFFFFFF else 1
        return gatt_fragments(frame, self.packet_size, frame_id, control)

    async def send_control(self, frame: bytes) -> None:
        for value in self._fragments(frame, control=True):
            await self.control.write_value(value, with_response=True)

    async def send_data(self, frame: bytes, drop_last_fragment: bool = False) -> None:
        values = self._fragments(frame, control=False)
        if drop_last_fragment:
            values = values[:-1]
        for value in values:
            await self.data.write_value(value, with_response=False)


async def send_file_over_gatt(connection, sender: GhostSender, confirm: Callable[[str], bool] = lambda code: True,
                              resume_wait: float = 0.5, timeout: float = 30.0, drop: set[int] = frozenset(),
                              stop_after: int | None = None) -> GattResult:
    link = GattLink(connection)
    capabilities = await link.open()
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()
    replies: list[bytes] = []
    window = SlidingWindow()
    result = GattResult(False, None, 0, capabilities=capabilities, packet_size=link.packet_size)
    retransmit_due: list[int] = []

    def on_frame(frame: bytes) -> None:
        replies.extend(sender.receive(frame))
        if len(frame) > 5 and frame[5] == KINDS['ack'] and sender.acked is not None:
            again = window.process_ack(sender.acked, sum(1 << (s - sender.acked - 1) for s in sender.nacks))
            result.nacked += sender.nacks
            retransmit_due.extend(s for s in again if s not in retransmit_due)
        changed.set()

    link.on_frame = on_frame

    async def flush() -> None:
        while replies:
            await link.send_control(replies.pop(0))
        while retransmit_due:
            await retransmit(retransmit_due.pop(0))

    async def retransmit(sequence: int) -> None:
        flight = window.inflight.get(sequence)
        if flight is None:
            return
        result.retransmitted.append(sequence)
        await link.send_data(flight.frame)
        window.mark_retransmitted(sequence, loop.time())

    async def until(condition: Callable[[], bool], wait: float) -> bool:
        end = loop.time() + wait
        while not condition():
            if sender.cancel_reason is not None:
                raise Cancelled(sender.cancel_reason)
            await flush()
            for sequence in window.timed_out(loop.time()):
                await retransmit(sequence)
            remaining = end - loop.time()
            if remaining <= 0:
                return False
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), min(remaining, RETRY_INTERVAL))
            except asyncio.TimeoutError:
                pass
        await flush()
        return True

    try:
        await link.send_control(sender.hello())
        if not await until(lambda: sender.sas is not None, timeout):
            raise Cancelled('no helloAck')
        result.sas = sender.sas
        accepted = confirm(sender.sas)
        await link.send_control(sender.confirm(accepted))
        if not accepted:
            result.cancel_reason = 'Codes did not match'
            return result
        if not await until(lambda: sender.peer_verified is not None, timeout) or not sender.peer_verified:
            raise Cancelled('the receiver did not confirm the code')
        await link.send_control(sender.metadata())
        await until(lambda: sender.resume_from > 0, resume_wait)
        start = result.resumed_from = sender.resume_from
        last = sender.chunk_count if stop_after is None else min(sender.chunk_count, start + stop_after)
        for sequence in range(start, last):
            if not await until(lambda: window.can_send(sequence), timeout):
                raise Cancelled('no ack')
            frame = sender.chunk(sequence)
            await link.send_data(frame, drop_last_fragment=sequence in drop)
            window.mark_sent(sequence, frame, loop.time())
        if not await until(lambda: sender.acked == last - 1 and not window.inflight, timeout) and last > start:
            raise Cancelled('the last chunk was not acknowledged')
        if last < sender.chunk_count:
            return result
        await link.send_control(sender.complete())
        result.completed = True
        return result
    except Cancelled as cancelled:
        result.cancel_reason = str(cancelled)
        return result
    finally:
        await link.close()
