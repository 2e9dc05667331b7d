"""The phone's GhostDrop sender over GATT (phone/ghostdrop_gatt.py): its
sliding window alone, and whole transfers between two Bumble devices on a
LocalLink, the receiver side a GATT server with GhostDrop's service running
the test's own receiver (test_ghostdrop.py's MiniReceiver), which holds
chunks behind a gap and NACKs the missing one as the reference's ack says."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import unittest

import harness  # puts the package on sys.path
from bumble.gatt import Characteristic, CharacteristicValue, Service

from phone import ghostdrop
from phone.ghostdrop_gatt import SlidingWindow, send_file_over_gatt
from test_ghostdrop import MiniReceiver

CAPABILITIES = b'{"capabilities":{"supportsL2CAP":false,"maxChunk":180,"maxWindow":32,"protocolVersion":1}}'


class WindowTests(unittest.TestCase):
    def test_at_most_the_window_in_flight(self) -> None:
        window = SlidingWindow(size=2)
        window.mark_sent(0, b'a', 0.0)
        window.mark_sent(1, b'b', 0.0)
        self.assertFalse(window.can_send(2))
        self.assertTrue(window.can_send(1))
        self.assertEqual(window.process_ack(0, 0), [])
        self.assertTrue(window.can_send(2))

    def test_nack_bits_name_sequences_after_the_cumulative_one(self) -> None:
        window = SlidingWindow()
        for sequence in range(6):
            window.mark_sent(sequence, bytes([sequence]), 0.0)
        # Everything up to 1 held; 2 and 4 missing; 9 was never sent.
        self.assertEqual(window.process_ack(1, 0b1000101), [2, 4])
        self.assertEqual(sorted(window.inflight), [2, 3, 4, 5])

    def test_frames_in_flight_for_two_seconds_are_due_again(self) -> None:
        window = SlidingWindow()
        window.mark_sent(0, b'a', 0.0)
        window.mark_sent(1, b'b', 1.5)
        self.assertEqual(window.timed_out(1.9), [])
        self.assertEqual(window.timed_out(2.0), [0])
        window.mark_retransmitted(0, 2.0)
        self.assertEqual(window.inflight[0].retries, 1)
        self.assertEqual(window.timed_out(3.6), [1])


class OrderedReceiver(MiniReceiver):
    """Joins GD values, answers helloAck and verifyAck, and acks chunks in
    order: a chunk after a gap is held, and the ack names the gap."""

    def __init__(self, notify) -> None:
        super().__init__()
        self.notify = notify
        self.joiner = ghostdrop.GattJoiner()
        self.held: dict[int, dict] = {}
        self.next = 0
        self.frame_id = 1000
        self.nacks_sent: list[int] = []

    def written(self, value: bytes) -> None:
        frame = self.joiner.feed(value)
        if frame is None:
            return
        if frame[5] == ghostdrop.KINDS['dataPayload']:
            _, payload = ghostdrop.decode_frame(frame)
            self.held[payload['sequence']] = payload
            while self.next in self.held:
                chunk = self.held.pop(self.next)
                self.feed(ghostdrop.encode_frame('dataPayload', chunk))
                self.next += 1
            bitmap = sum(1 << (s - self.next) for s in range(self.next, max(self.held, default=-1)) if s not in self.held)
            self.nacks_sent += [self.next + bit for bit in range(64) if bitmap >> bit & 1]
            self.send(ghostdrop.encode_frame('ack', {'cumulativeSequence': self.next - 1, 'nackBitmap': bitmap}))
            return
        had_ack = self.peer_ack
        for answer in self.feed(frame):
            self.send(answer)
        if self.peer_ack and not had_ack:
            self.send(ghostdrop.encode_frame('verifyAck', {'accepted': True}))

    def send(self, frame: bytes) -> None:
        self.frame_id += 1
        for value in ghostdrop.gatt_fragments(frame, 64, self.frame_id, control=False):
            self.notify(value)


class GattSenderTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.phone, self.headunit = harness.local_devices()
        self.receiver: OrderedReceiver | None = None

        def written(connection, value) -> None:
            if self.receiver is None:
                self.receiver = OrderedReceiver(lambda v: asyncio.get_running_loop().create_task(
                    self.headunit.notify_subscribers(self.data, v)))
            self.receiver.written(bytes(value))

        value = CharacteristicValue(write=written)
        self.data = Characteristic(ghostdrop.DATA_UUID, Characteristic.Properties.NOTIFY
                                   | Characteristic.Properties.WRITE_WITHOUT_RESPONSE, Characteristic.WRITEABLE, value)
        self.control = Characteristic(ghostdrop.CONTROL_UUID, Characteristic.Properties.NOTIFY
                                      | Characteristic.Properties.WRITE, Characteristic.WRITEABLE, value)
        capabilities = Characteristic(ghostdrop.CAPABILITIES_UUID, Characteristic.Properties.READ,
                                      Characteristic.READABLE, CAPABILITIES)
        self.headunit.add_service(Service(ghostdrop.SERVICE_UUID, [self.data, self.control, capabilities]))
        for device in (self.phone, self.headunit):
            await device.power_on()
        await self.headunit.start_advertising(auto_restart=False)
        self.connection = await self.phone.connect(self.headunit.random_address)

    async def test_a_file_goes_over_gatt_in_values_of_the_mtu(self) -> None:
        data = os.urandom(5000)
        sender = ghostdrop.GhostSender(data, 'update.bundle', chunk_size=180)
        result = await send_file_over_gatt(self.connection, sender, resume_wait=0.1, timeout=5)
        self.assertTrue(result.completed, result)
        await asyncio.sleep(0.1)
        self.assertEqual(json.loads(result.capabilities)['capabilities']['supportsL2CAP'], False)
        self.assertEqual(result.packet_size, self.connection.att_mtu - 3)
        self.assertEqual(ghostdrop.sas(self.receiver.hash), result.sas)
        self.assertEqual(self.receiver.file, data)
        self.assertEqual(ghostdrop.b64(self.receiver.complete['sha256']), hashlib.sha256(data).digest())
        # Nothing was lost: no gap to NACK (a loaded machine may still
        # let the 2 s timer send a frame again, as the reference would).
        self.assertEqual(self.receiver.nacks_sent, [])
        self.assertEqual(result.nacked, [])

    async def test_a_lost_fragment_is_nacked_and_its_frame_sent_again(self) -> None:
        data = os.urandom(2000)
        sender = ghostdrop.GhostSender(data, 'update.bundle', chunk_size=200)
        result = await send_file_over_gatt(self.connection, sender, resume_wait=0.1, timeout=5, drop={3})
        self.assertTrue(result.completed, result)
        await asyncio.sleep(0.1)
        self.assertIn(3, self.receiver.nacks_sent)
        self.assertIn(3, result.nacked)
        self.assertIn(3, result.retransmitted)
        self.assertEqual(self.receiver.file, data)

    async def test_a_lost_last_chunk_goes_again_after_two_seconds(self) -> None:
        # Nothing follows the last chunk, so no ack names it: the timer sends it.
        data = os.urandom(1000)
        sender = ghostdrop.GhostSender(data, 'update.bundle', chunk_size=200)
        started = asyncio.get_running_loop().time()
        result = await send_file_over_gatt(self.connection, sender, resume_wait=0.1, timeout=5, drop={4})
        self.assertTrue(result.completed, result)
        self.assertIn(4, result.retransmitted)
        self.assertNotIn(4, result.nacked)
        self.assertGreaterEqual(asyncio.get_running_loop().time() - started, 2.0)
        await asyncio.sleep(0.1)
        self.assertEqual(self.receiver.file, data)


if __name__ == '__main__':
    unittest.main()
