"""The phone's GhostDrop sender over Bumble's own LE credit-based channel
(phone/ghostdrop_l2cap.py): two Bumble devices on a LocalLink, the receiver
side a channel server running the test's own receiver (test_ghostdrop.py's
MiniReceiver). SDUs larger than the MPS, answers joined or cut as they come."""

from __future__ import annotations

import asyncio
import hashlib
import os
import unittest

import harness  # puts the package on sys.path
from bumble import l2cap

from phone import ghostdrop
from phone.ghostdrop_l2cap import send_file
from test_ghostdrop import MiniReceiver

PSM = 0x0081


class ChannelReceiver(MiniReceiver):
    """Confirms the code when the sender does, and stops acking after `ack_limit` chunks."""

    def __init__(self, channel, held: bytes = b'', resume_transfer: str | None = None) -> None:
        super().__init__()
        self.channel = channel
        self.file = held
        self.resume_transfer = resume_transfer
        self.closed = asyncio.Event()
        channel.sink = self.on_sdu
        channel.on('close', self.closed.set)

    def on_sdu(self, sdu: bytes) -> None:
        had_metadata = self.metadata is not None
        for frame in self.feed(sdu):
            self.channel.write(frame)
        if self.peer_ack and not getattr(self, 'acked_code', False):
            self.acked_code = True
            self.channel.write(ghostdrop.encode_frame('verifyAck', {'accepted': True}))
        if self.metadata is not None and not had_metadata and self.file:
            chunks = len(self.file) // self.metadata['chunkSize']
            self.channel.write(ghostdrop.encode_frame('resume', {'transferID': self.metadata['transferID'],
                                                                 'lastConfirmedSequence': chunks - 1}))


class L2CAPSenderTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.phone, self.headunit = harness.local_devices()
        for device in (self.phone, self.headunit):
            await device.power_on()
        self.receivers: list[ChannelReceiver] = []
        self.held = b''
        self.headunit.create_l2cap_server(spec=l2cap.LeCreditBasedChannelSpec(psm=PSM, mtu=2048, mps=64, max_credits=8),
                                          handler=lambda channel: self.receivers.append(ChannelReceiver(channel, self.held)))
        await self.headunit.start_advertising(auto_restart=False)
        self.connection = await self.phone.connect(self.headunit.random_address)

    async def test_a_file_goes_over_the_channel_with_one_code_on_both_sides(self) -> None:
        data = os.urandom(3000)
        sender = ghostdrop.GhostSender(data, 'update.bundle', chunk_size=180)
        result = await send_file(self.connection, PSM, sender, resume_wait=0.1, timeout=5)
        self.assertTrue(result.completed, result)
        receiver = self.receivers[0]
        await asyncio.sleep(0.1)
        self.assertEqual(ghostdrop.sas(receiver.hash), result.sas)
        self.assertEqual(receiver.file, data)
        self.assertEqual(ghostdrop.b64(receiver.complete['sha256']), hashlib.sha256(data).digest())
        self.assertEqual(result.resumed_from, 0)

    async def test_an_interrupted_transfer_resumes_where_the_receiver_stands(self) -> None:
        data = os.urandom(2000)
        sender = ghostdrop.GhostSender(data, 'update.bundle', chunk_size=200)
        first = await send_file(self.connection, PSM, sender, resume_wait=0.1, timeout=5, stop_after=4)
        self.assertFalse(first.completed)
        await asyncio.wait_for(self.receivers[0].closed.wait(), 5)
        self.held = self.receivers[0].file
        self.assertEqual(self.held, data[:800])
        # The link drops too; the phone connects again.
        await self.connection.disconnect()
        await self.headunit.start_advertising(auto_restart=False)
        self.connection = await self.phone.connect(self.headunit.random_address)
        again = ghostdrop.GhostSender(data, 'update.bundle', chunk_size=200)
        again.transfer_id = sender.transfer_id
        second = await send_file(self.connection, PSM, again, resume_wait=1.0, timeout=5)
        self.assertTrue(second.completed, second)
        self.assertEqual(second.resumed_from, 4)
        self.assertEqual(self.receivers[1].file, data)

    async def test_a_held_transfer_sends_no_more_until_the_link_goes(self) -> None:
        data = os.urandom(2000)
        sender = ghostdrop.GhostSender(data, 'update.bundle', chunk_size=200)
        acknowledged = []
        held = asyncio.get_running_loop().create_task(
            send_file(self.connection, PSM, sender, resume_wait=0.1, timeout=5, hold_after=3,
                      on_hold=acknowledged.append))
        receiver = None
        for _ in range(100):
            if self.receivers and len(self.receivers[0].file) >= 600:
                receiver = self.receivers[0]
                break
            await asyncio.sleep(0.05)
        self.assertIsNotNone(receiver, 'three chunks did not arrive')
        # However long the receiver waits, the channel stays open and quiet.
        await asyncio.sleep(0.5)
        self.assertEqual(receiver.file, data[:600])
        self.assertFalse(held.done())
        self.assertFalse(receiver.closed.is_set())
        self.assertEqual(acknowledged, [3], 'the sender says once that the receiver has the three chunks')
        await self.connection.disconnect()
        result = await asyncio.wait_for(held, 5)
        self.assertFalse(result.completed)
        self.assertEqual(result.cancel_reason, 'the link went while the sender held')

    async def test_a_mismatched_code_sends_nothing_of_the_file(self) -> None:
        sender = ghostdrop.GhostSender(b'secret' * 100, 'f')
        result = await send_file(self.connection, PSM, sender, confirm=lambda code: False, timeout=5)
        self.assertFalse(result.completed)
        self.assertEqual(result.cancel_reason, 'Codes did not match')
        await asyncio.sleep(0.1)
        self.assertIsNone(self.receivers[0].metadata)
        self.assertEqual(self.receivers[0].file, b'')


if __name__ == '__main__':
    unittest.main()
