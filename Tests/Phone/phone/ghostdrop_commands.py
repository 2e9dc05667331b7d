"""Control-protocol command for GhostDrop's sender over the LE credit-based
channel (phone/ghostdrop_l2cap.py), for the head unit's integration tests.

- `ghostdrop_send` (`phone`, `psm`; optional `size` 1000, `filename`
  `headunit.conf`, `mime_type` `text/plain`, `accept` true, `timeout` 60):
  starts sending `size` bytes of a pattern (byte i = i * 7 mod 256) on the
  phone's link and answers at once with `sha256` (hex) of them. `path`: send
  that file's bytes instead (`filename` defaults to its name); `chunk_size`:
  bytes per chunk (default the sender's, 180). The phone
  user's answer to the code is `accept`, given as soon as the code is known.
  `stop_after` N: close the channel after N chunks are acknowledged (an
  interrupted transfer). `hold_after` N (over L2CAP): send no more after N
  chunks and keep the channel until the link goes, so a test can cut the
  link at a known point: `ghostdrop_held` (`phone`, `chunks`, `bytes`) says
  when the receiver has acknowledged all N. `again` true: send the phone's last file again
  under the same transfer ID (the receiver may resume it). Events: `ghostdrop_code` (`phone`, `code`), then `ghostdrop_done`
  (`phone`, `completed`, `resumed_from`, `cancel_reason`).
  `l2cap` false: the phone does not use the channel and sends over GhostDrop's
  GATT service instead (phone/ghostdrop_gatt.py; `psm` is then not needed);
  `drop` [N, ...]: the first transmission of those chunks loses a fragment.
  `ghostdrop_done` then also carries `transport`, `nacked` and
  `retransmitted` (chunk sequences) and `capabilities` (the value read).
"""

from __future__ import annotations

import asyncio
import hashlib
import os

from .control import ControlError, _phone_name
from .ghostdrop import GhostSender
from .ghostdrop_gatt import send_file_over_gatt
from .ghostdrop_l2cap import send_file


def pattern(size: int) -> bytes:
    return bytes((i * 7) & 0xFF for i in range(size))


def register(protocol) -> None:
    tasks: set[asyncio.Task] = set()
    last: dict[str, GhostSender] = {}

    async def ghostdrop_send(arguments: dict) -> dict:
        phone = protocol.simulator.phone(_phone_name(arguments))
        connections = list(phone.connections.values())
        if not connections:
            raise ControlError('not connected')
        over_l2cap = bool(arguments.get('l2cap', True))
        psm = arguments.get('psm')
        if over_l2cap and (isinstance(psm, bool) or not isinstance(psm, int)):
            raise ControlError('"psm" is an integer')
        previous = last.get(phone.name) if arguments.get('again') else None
        if arguments.get('again') and previous is None:
            raise ControlError('no file was sent before')
        path = arguments.get('path')
        if previous:
            data = previous.data
        elif path is not None:
            try:
                with open(str(path), 'rb') as f:
                    data = f.read()
            except OSError as error:
                raise ControlError(f'cannot read {path}: {error}')
        else:
            data = pattern(int(arguments.get('size', 1000)))
        default_name = os.path.basename(str(path)) if path is not None else 'headunit.conf'
        sender = GhostSender(data, previous.filename if previous else str(arguments.get('filename', default_name)),
                             previous.mime_type if previous else str(arguments.get('mime_type', 'text/plain')))
        if previous:
            sender.transfer_id = previous.transfer_id
            sender.chunk_size = previous.chunk_size
        elif arguments.get('chunk_size') is not None:
            sender.chunk_size = int(arguments['chunk_size'])
        last[phone.name] = sender
        stop_after = arguments.get('stop_after')
        accept = bool(arguments.get('accept', True))

        def confirm(code: str) -> bool:
            phone.report('ghostdrop_code', code=code)
            return accept

        async def run() -> None:
            try:
                timeout = float(arguments.get('timeout', 60))
                stop = int(stop_after) if stop_after is not None else None
                if over_l2cap:
                    result = await send_file(connections[0], psm, sender, confirm=confirm, resume_wait=1.0,
                                             timeout=timeout, stop_after=stop,
                                             hold_after=None if arguments.get('hold_after') is None
                                             else int(arguments['hold_after']),
                                             on_hold=lambda chunks: phone.report(
                                                 'ghostdrop_held', chunks=chunks,
                                                 bytes=min(chunks * sender.chunk_size, len(sender.data))))
                    phone.report('ghostdrop_done', completed=result.completed, resumed_from=result.resumed_from,
                                 cancel_reason=result.cancel_reason, transport='l2cap')
                    return
                result = await send_file_over_gatt(connections[0], sender, confirm=confirm, resume_wait=1.0,
                                                   timeout=timeout, stop_after=stop,
                                                   drop={int(n) for n in arguments.get('drop', [])})
                phone.report('ghostdrop_done', completed=result.completed, resumed_from=result.resumed_from,
                             cancel_reason=result.cancel_reason, transport='gatt', nacked=result.nacked,
                             retransmitted=result.retransmitted, capabilities=result.capabilities.decode(errors='replace'))
            except Exception as error:  # the test reads the reason instead of a hang
                phone.report('ghostdrop_done', completed=False, resumed_from=0, cancel_reason=f'{type(error).__name__}: {error}')

        task = asyncio.get_running_loop().create_task(run())
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return {'sha256': hashlib.sha256(data).hexdigest(), 'size': len(data)}

    protocol.register('ghostdrop_send', ghostdrop_send)
