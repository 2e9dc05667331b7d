"""The phone's LE credit based channel commands against a Bumble head unit.

The head unit (a Bumble peripheral, as in test_settings_pairing) publishes an LE
credit based channel server with a small MPS; the phone pairs from Settings, opens
the channel with `open_channel`, sends SDUs larger than the MPS with
`channel_send`, receives one as a `channel_sdu` event and closes it.
"""

from __future__ import annotations

import asyncio
import unittest

from test_settings_pairing import SettingsTestCase

from bumble import l2cap

PSM = 0x0080


class ChannelCommandTests(SettingsTestCase):
    phone_settings = {'apple_services': 'after_bonding'}

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.channels: asyncio.Queue = asyncio.Queue()
        self.sdus: asyncio.Queue = asyncio.Queue()

        def opened(channel) -> None:
            channel.sink = self.sdus.put_nowait
            self.channels.put_nowait(channel)

        # MTU 1024, MPS 64, 4 credits: the phone's SDUs take many K-frames and credits.
        self.head_unit.device.create_l2cap_server(
            spec=l2cap.LeCreditBasedChannelSpec(psm=PSM, mtu=1024, mps=64, max_credits=4), handler=opened
        )

    async def test_open_send_receive_close(self) -> None:
        await self.pair_from_settings()
        refused = await self.control.handle_line('{"cmd":"open_channel","phone":"anna","psm":129}')
        self.assertFalse(refused['ok'])
        self.assertIn('(0x0002)', refused['error'])  # SPSM not supported

        opened = await self.command(cmd='open_channel', phone='anna', psm=PSM, mtu=512, mps=100)
        self.assertEqual((opened['peer_mtu'], opened['peer_mps'], opened['credits']), (1024, 64, 4))
        channel = await asyncio.wait_for(self.channels.get(), 3)

        sent = await self.command(cmd='channel_send', phone='anna', size=1000, count=2)
        self.assertEqual(sent['sent'], 2000)
        self.assertGreater(sent['credits_received'], 0)
        for _ in range(2):
            sdu = await asyncio.wait_for(self.sdus.get(), 3)
            self.assertEqual(sdu, bytes(i & 0xFF for i in range(1000)))

        mark = self.sim.event_mark()
        channel.write(bytes(range(200)) * 2)
        event = await self.sim.wait_for('channel_sdu', phone='anna', after=mark, timeout=3)
        self.assertEqual((event['length'], event['hex']), (400, bytes(range(32)).hex()))

        too_big = await self.control.handle_line('{"cmd":"channel_send","phone":"anna","size":1025}')
        self.assertFalse(too_big['ok'])
        self.assertEqual((await self.command(cmd='close_channel', phone='anna'))['closed'], True)
        nothing = await self.control.handle_line('{"cmd":"channel_send","phone":"anna","size":1}')
        self.assertEqual(nothing['error'], 'no open channel')


if __name__ == '__main__':
    unittest.main()
