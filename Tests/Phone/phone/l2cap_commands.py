"""Control-protocol commands for LE credit based L2CAP channels (Core Vol 3 Part A
4.22-4.24), opened by the phone as GhostDrop's sender opens its channel, with
Bumble's own implementation (`Connection.create_l2cap_channel` with an
`l2cap.LeCreditBasedChannelSpec`).

- `open_channel` (`phone`, `psm`; optional `mtu` 2048, `mps` 2048, `credits` 256,
  `timeout` 10): an LE Credit Based Connection Request on the phone's link to the
  head unit. Reply: `cid` (ours), `peer_cid`, `peer_mtu`, `peer_mps`, `credits` (those
  the head unit granted); a refusal is an error naming the result (e.g.
  `refused: INSUFFICIENT_ENCRYPTION (0x0008)`). SDUs the head unit sends arrive as
  `channel_sdu` events (`phone`, `cid`, `length`, `hex` of the first 32 bytes).
- `channel_send` (`phone`; `size` (a counting pattern) or `hex`; optional `count` 1,
  `timeout` 10): writes `count` SDUs and waits until every K-frame is sent (which
  needs the head unit's credits). Reply: `sent` (bytes), `credits` (left),
  `credits_received` (granted by the head unit since the channel opened).
- `close_channel` (`phone`; optional `timeout` 5): Disconnection Request. Reply: `closed`.
"""

from __future__ import annotations

import asyncio

from bumble import l2cap

from .control import ControlError, _phone_name


def register(protocol) -> None:
    channels: dict[str, dict] = {}

    def phone_of(arguments: dict):
        return protocol.simulator.phone(_phone_name(arguments))

    def integer(arguments: dict, key: str, default: int | None = None) -> int:
        value = arguments.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ControlError(f'"{key}" is an integer')
        return value

    def channel_of(arguments: dict) -> dict:
        entry = channels.get(_phone_name(arguments))
        if entry is None or entry['channel'].state != l2cap.LeCreditBasedChannel.State.CONNECTED:
            raise ControlError('no open channel')
        return entry

    async def open_channel(arguments: dict) -> dict:
        phone = phone_of(arguments)
        connections = list(phone.connections.values())
        if not connections:
            raise ControlError('not connected')
        spec = l2cap.LeCreditBasedChannelSpec(
            psm=integer(arguments, 'psm'),
            mtu=integer(arguments, 'mtu', 2048),
            mps=integer(arguments, 'mps', 2048),
            max_credits=integer(arguments, 'credits', 256),
        )
        try:
            channel = await asyncio.wait_for(
                connections[0].create_l2cap_channel(spec=spec), float(arguments.get('timeout', 10))
            )
        except l2cap.L2capError as error:
            raise ControlError(f'refused: {error.error_name} (0x{error.error_code:04X})') from error
        except asyncio.TimeoutError as error:
            raise ControlError('no answer to the connection request') from error
        entry = {'channel': channel, 'initial_credits': channel.credits, 'credits_received': 0}
        channels[phone.name] = entry
        # Count the credits the head unit grants: Bumble adds them in on_credits.
        on_credits = channel.on_credits

        def counted(credits: int) -> None:
            entry['credits_received'] += credits
            on_credits(credits)

        channel.on_credits = counted

        def sink(sdu: bytes) -> None:
            phone.report('channel_sdu', cid=channel.source_cid, length=len(sdu), hex=sdu[:32].hex())

        channel.sink = sink
        return {
            'cid': channel.source_cid,
            'peer_cid': channel.destination_cid,
            'peer_mtu': channel.peer_mtu,
            'peer_mps': channel.peer_mps,
            'credits': channel.credits,
        }

    async def channel_send(arguments: dict) -> dict:
        entry = channel_of(arguments)
        channel = entry['channel']
        if 'hex' in arguments:
            sdu = bytes.fromhex(str(arguments['hex']))
        else:
            sdu = bytes(i & 0xFF for i in range(integer(arguments, 'size')))
        if len(sdu) > channel.peer_mtu:
            raise ControlError(f'{len(sdu)} bytes above the head unit\'s MTU {channel.peer_mtu}')
        count = integer(arguments, 'count', 1)
        for _ in range(count):
            channel.write(sdu)
            # One SDU per write: Bumble joins queued writes into one SDU.
            try:
                await asyncio.wait_for(channel.drain(), float(arguments.get('timeout', 10)))
            except asyncio.TimeoutError as error:
                raise ControlError(f'K-frames still wait for credits ({channel.credits} left)') from error
        return {'sent': len(sdu) * count, 'credits': channel.credits, 'credits_received': entry['credits_received']}

    async def close_channel(arguments: dict) -> dict:
        entry = channel_of(arguments)
        await asyncio.wait_for(entry['channel'].disconnect(), float(arguments.get('timeout', 5)))
        return {'closed': True}

    protocol.register('open_channel', open_channel)
    protocol.register('channel_send', channel_send)
    protocol.register('close_channel', close_channel)
