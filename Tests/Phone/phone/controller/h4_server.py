"""H4 over TCP: the head unit's `tcp:HOST:PORT` transport connects here.

One host at a time. Each new TCP connection is a power-up of the controller as far
as the host can tell, and a closed connection powers it down (its connections
vanish). Bumble's own `tcp-server:` transport is not used: it shares one sink
between TCP connections and clears it when any of them closes, so a host that
reconnects quickly can get no events at all.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Callable

logger = logging.getLogger(__name__)

# packet type -> (header length after the type byte, offset of the length field,
# struct format of the length field, mask applied to the length)
_HEADERS = {
    0x01: (3, 2, '<B', 0xFF),  # command: opcode(2) length(1)
    0x02: (4, 2, '<H', 0xFFFF),  # ACL: handle+flags(2) length(2)
    0x03: (3, 2, '<B', 0xFF),  # SCO: handle+flags(2) length(1)
    0x04: (2, 1, '<B', 0xFF),  # event: code(1) length(1)
    0x05: (4, 2, '<H', 0x3FFF),  # ISO: handle+flags(2) length(14 bits)
}


class H4FramingError(Exception):
    pass


class H4Framer:
    """Splits a byte stream into H4 packets (type byte + HCI packet)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        packets = []
        while self._buffer:
            header = _HEADERS.get(self._buffer[0])
            if header is None:
                raise H4FramingError(f'unknown H4 packet type 0x{self._buffer[0]:02X}')
            header_length, length_offset, length_format, length_mask = header
            if len(self._buffer) < 1 + header_length:
                break
            (length,) = struct.unpack_from(length_format, self._buffer, 1 + length_offset)
            total = 1 + header_length + (length & length_mask)
            if len(self._buffer) < total:
                break
            packets.append(bytes(self._buffer[:total]))
            del self._buffer[:total]
        return packets


class H4Server:
    """Serves one H4 host on 127.0.0.1.

    deliver(packet) receives every packet from the host; attach(send) is called with
    a function writing packets to the host when one connects, detach() when it goes.
    """

    def __init__(
        self,
        deliver: Callable[[bytes], None],
        attach: Callable[[Callable[[bytes], None]], None],
        detach: Callable[[], None],
        on_client: Callable[[str, str], None] | None = None,
    ) -> None:
        self._deliver = deliver
        self._attach = attach
        self._detach = detach
        self._on_client = on_client or (lambda _state, _peer: None)
        self._server: asyncio.Server | None = None
        self._client: asyncio.StreamWriter | None = None
        self._client_task: asyncio.Task | None = None
        self.port = 0

    async def start(self, port: int = 0, host: str = '127.0.0.1') -> int:
        self._server = await asyncio.start_server(self._on_connection, host, port)
        self.port = self._server.sockets[0].getsockname()[1]
        logger.info('H4 server listening on %s:%d', host, self.port)
        return self.port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._client is not None:
            self._client.close()
        if self._client_task is not None:
            try:
                await asyncio.wait_for(self._client_task, 2)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    async def unplug(self, seconds: float) -> None:
        """The transport goes away (cable pulled, simulator host gone): the host's
        connection is closed and nothing listens for `seconds` (connects are
        refused); then the port is served again, a fresh power-up for the next host."""
        port = self.port
        if self._server is not None:
            self._server.close()
        if self._client is not None:
            self._client.close()
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
        await asyncio.sleep(seconds)
        await self.start(port)

    @property
    def connected(self) -> bool:
        return self._client is not None

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = '%s:%s' % writer.get_extra_info('peername')[:2]
        if self._client is not None:
            logger.warning('refusing second H4 host %s: one is already connected', peer)
            self._on_client('refused', peer)
            writer.close()
            return
        logger.info('H4 host connected from %s', peer)
        self._client = writer
        self._client_task = asyncio.current_task()
        framer = H4Framer()

        def send(packet: bytes) -> None:
            if not writer.is_closing():
                writer.write(packet)

        self._attach(send)
        self._on_client('connected', peer)
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for packet in framer.feed(data):
                    self._deliver(packet)
        except H4FramingError as error:
            # A real UART controller would lose synchronisation: drop the host.
            logger.error('H4 host %s sent garbage (%s): closing', peer, error)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            logger.info('H4 host %s disconnected', peer)
            self._client = None
            self._client_task = None
            self._detach()
            writer.close()
            self._on_client('disconnected', peer)
