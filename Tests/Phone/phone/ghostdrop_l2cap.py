"""The GhostDrop sender over an LE credit-based channel (Bumble's LE CoC):
opens the channel on the receiver's PSM, runs the handshake, sends the file
and waits for the last ack.

    result = await send_file(connection, psm, GhostSender(data, 'update.bundle'))

On the channel, frames follow each other as a stream: each frame is written
as one SDU (Bumble segments it into K-frames of the MPS); answers may come
cut or joined in any way, and `GhostSender.receive` joins them.
`confirm(code)` is the phone user's answer to the 6-digit code (True:
"Codes match"). After `metadata` the sender waits `resume_wait` seconds for
a `resume` before its first chunk, then sends at most `window` chunks ahead
of the receiver's acks.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Callable

from bumble import l2cap

from phone.ghostdrop import Cancelled, GhostSender


@dataclass
class Result:
    completed: bool
    sas: str | None
    resumed_from: int
    cancel_reason: str | None = None


async def send_file(connection, psm: int, sender: GhostSender, confirm: Callable[[str], bool] = lambda code: True,
                    resume_wait: float = 0.5, window: int = 16, timeout: float = 30.0, mtu: int = 2048,
                    mps: int = 247, stop_after: int | None = None, hold_after: int | None = None,
                    on_hold: Callable[[int], None] | None = None) -> Result:
    """`stop_after`: close the channel after that many chunks (an interrupted
    transfer). `hold_after`: once that many chunks are acknowledged, send no
    more and keep the channel open until the link goes (an app suspended
    mid-transfer): the receiver's state is then known when the link is cut.
    `on_hold` is then called with the number of chunks acknowledged: the
    receiver has them all, so a test may cut the link without racing the
    transfer."""
    channel = await connection.create_l2cap_channel(spec=l2cap.LeCreditBasedChannelSpec(psm=psm, mtu=mtu, mps=mps))
    changed = asyncio.Event()
    replies: list[bytes] = []

    def on_sdu(sdu: bytes) -> None:
        replies.extend(sender.receive(sdu))
        changed.set()

    channel.sink = on_sdu
    closed = asyncio.Event()
    channel.on('close', closed.set)

    async def until(condition: Callable[[], bool], wait: float) -> bool:
        loop = asyncio.get_running_loop()
        end = loop.time() + wait
        while not condition():
            if sender.cancel_reason is not None:
                raise Cancelled(sender.cancel_reason)
            remaining = end - loop.time()
            if remaining <= 0:
                return False
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), remaining)
            except asyncio.TimeoutError:
                pass
            flush()
        return True

    def flush() -> None:
        while replies:
            channel.write(replies.pop(0))

    try:
        channel.write(sender.hello())
        if not await until(lambda: sender.sas is not None, timeout):
            raise Cancelled('no helloAck')
        flush()
        accepted = confirm(sender.sas)
        channel.write(sender.confirm(accepted))
        if not accepted:
            return Result(False, sender.sas, 0, 'Codes did not match')
        if not await until(lambda: sender.peer_verified is not None, timeout) or not sender.peer_verified:
            raise Cancelled('the receiver did not confirm the code')
        channel.write(sender.metadata())
        await until(lambda: sender.resume_from > 0, resume_wait)
        start = sender.resume_from
        last = sender.chunk_count if stop_after is None else min(sender.chunk_count, start + stop_after)
        if hold_after is not None:
            last = min(last, start + hold_after)
        for sequence in range(start, last):
            if not await until(lambda: sequence - (-1 if sender.acked is None else sender.acked) <= window, timeout):
                raise Cancelled('no ack')
            channel.write(sender.chunk(sequence))
            await channel.drain()
        if stop_after is not None and last < sender.chunk_count:
            await until(lambda: sender.acked == last - 1, timeout)
            await channel.disconnect()
            return Result(False, sender.sas, start)
        if hold_after is not None and last < sender.chunk_count:
            if await until(lambda: sender.acked == last - 1, timeout) and on_hold is not None:
                on_hold(last)
            await closed.wait()
            return Result(False, sender.sas, start, 'the link went while the sender held')
        if not await until(lambda: sender.acked == sender.chunk_count - 1, timeout) and sender.chunk_count > 0:
            raise Cancelled('the last chunk was not acknowledged')
        channel.write(sender.complete())
        await channel.drain()
        return Result(True, sender.sas, start)
    except Cancelled as cancelled:
        return Result(False, sender.sas, sender.resume_from, str(cancelled))
