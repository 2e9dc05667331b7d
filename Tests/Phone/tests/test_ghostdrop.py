"""The phone's GhostDrop sender (phone/ghostdrop.py) against a receiver
written here from the same public facts, and the recorded fixture the head
unit's Swift receiver is tested with (Tests/GhostDropTests/Fixtures)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
import unittest
import uuid

import harness  # noqa: F401 - puts the package on sys.path
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import ec

from phone import ghostdrop, ghostdrop_fixture

FIXTURE = os.path.join(os.path.dirname(__file__), '..', '..', 'GhostDropTests', 'Fixtures', 'transfer.json')


class MiniReceiver:
    """Just enough of a receiver to read what the sender writes."""

    def __init__(self, rng=os.urandom) -> None:
        self.key = ghostdrop.private_key_from(rng)
        self.public_key = ghostdrop.x963(self.key.public_key())
        self.nonce = rng(16)
        self.reader = ghostdrop.FrameReader()
        self.file = b''
        self.metadata: dict | None = None
        self.complete: dict | None = None
        self.verify: dict | None = None
        self.peer_ack: bool | None = None

    def feed(self, data: bytes) -> list[bytes]:
        out = []
        for key, payload in self.reader.feed(data):
            if key == 'hello':
                peer_key, peer_nonce = ghostdrop.b64(payload['ephemeralPublicKey']), ghostdrop.b64(payload['nonce'])
                session = uuid.UUID(payload['sessionID'])
                shared = self.key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), peer_key))
                self.hash = hashlib.sha256(ghostdrop.transcript(session, self.public_key, self.nonce, peer_key, peer_nonce)).digest()
                material = ghostdrop.hkdf(shared, self.hash, b'GhostDrop Session Keys', 64)
                self.open = ghostdrop.Direction.of(material[:32], 'sender')
                self.seal = ghostdrop.Direction.of(material[:32], 'receiver')
                out.append(ghostdrop.encode_frame('helloAck', {'sessionID': session, 'ephemeralPublicKey': self.public_key,
                                                               'nonce': self.nonce}))
            elif key == 'verify':
                self.verify = payload
            elif key == 'verifyAck':
                self.peer_ack = payload['accepted']
            elif key == 'encrypted':
                inner_key, inner = ghostdrop.decode_frame(self.open.open(ghostdrop.b64(payload['combined']), payload['sequence']))
                setattr(self, inner_key, inner)
            elif key == 'dataPayload':
                self.file += self.open.open(ghostdrop.b64(payload['payload']), payload['sequence'])
                out.append(ghostdrop.encode_frame('ack', {'cumulativeSequence': payload['sequence'], 'nackBitmap': 0}))
        return out


def handshake(sender: ghostdrop.GhostSender, receiver: MiniReceiver) -> None:
    for answer in receiver.feed(sender.hello()):
        for reply in sender.receive(answer):
            receiver.feed(reply)
    receiver.feed(sender.confirm(True))
    sender.receive(ghostdrop.encode_frame('verifyAck', {'accepted': True}))


class FrameTests(unittest.TestCase):
    def test_header_and_json_as_jsonencoder_writes_them(self) -> None:
        frame = ghostdrop.encode_frame('cancel', {'reason': 'a/b'})
        self.assertEqual(frame[:6], b'GHST\x01\x0a')
        self.assertEqual(struct.unpack('>I', frame[6:10])[0], len(frame) - 10)
        self.assertEqual(frame[10:], b'{"cancel":{"reason":"a\\/b"}}')
        self.assertEqual(ghostdrop.decode_frame(frame), ('cancel', {'reason': 'a/b'}))

    def test_reader_joins_a_stream_cut_anywhere(self) -> None:
        frames = [ghostdrop.encode_frame('ping', {'id': i}) for i in range(5)]
        stream = b''.join(frames)
        reader = ghostdrop.FrameReader()
        got = []
        for i in range(0, len(stream), 7):
            got += reader.feed(stream[i:i + 7])
        self.assertEqual(got, [('ping', {'id': i}) for i in range(5)])

    def test_bad_magic_is_refused(self) -> None:
        with self.assertRaises(ghostdrop.FrameError):
            ghostdrop.decode_frame(b'GHSX\x01\x0b\x00\x00\x00\x02{}')


class GattTests(unittest.TestCase):
    def test_values_join_back_in_any_order(self) -> None:
        frame = ghostdrop.encode_frame('dataPayload', {'sequence': 1, 'payload': os.urandom(300)})
        values = ghostdrop.gatt_fragments(frame, 20, 7, False)
        self.assertTrue(all(len(v) <= 20 for v in values))
        self.assertEqual(values[0][:11], b'GD\x00\x00\x00\x07\x00\x00' + struct.pack('>H', len(values)) + b'\x00')
        joiner = ghostdrop.GattJoiner()
        results = [joiner.feed(v) for v in reversed(values)]
        self.assertEqual(results[-1], frame)
        self.assertEqual(results[:-1], [None] * (len(values) - 1))


class SenderTests(unittest.TestCase):
    def test_handshake_gives_both_sides_one_code_and_the_file_arrives(self) -> None:
        data = os.urandom(1000)
        sender = ghostdrop.GhostSender(data, 'update.bundle')
        receiver = MiniReceiver()
        handshake(sender, receiver)
        self.assertEqual(receiver.verify['sasCode'], sender.sas)
        self.assertEqual(ghostdrop.sas(receiver.hash), sender.sas)
        self.assertEqual(ghostdrop.b64(receiver.verify['transcriptHash']), receiver.hash)
        self.assertTrue(sender.verified)
        receiver.feed(sender.metadata())
        self.assertEqual(receiver.metadata['size'], 1000)
        self.assertEqual(receiver.metadata['chunkSize'], 180)
        for chunk in sender.chunks():
            for ack in receiver.feed(chunk):
                sender.receive(ack)
        receiver.feed(sender.complete())
        self.assertEqual(receiver.file, data)
        self.assertEqual(ghostdrop.b64(receiver.complete['sha256']), hashlib.sha256(data).digest())
        self.assertEqual(sender.acked, 5)

    def test_a_rejected_code_stops_the_transfer(self) -> None:
        sender = ghostdrop.GhostSender(b'x' * 10, 'f')
        receiver = MiniReceiver()
        for answer in receiver.feed(sender.hello()):
            sender.receive(answer)
        sender.receive(ghostdrop.encode_frame('verifyAck', {'accepted': False}))
        sender.confirm(True)
        with self.assertRaises(ghostdrop.Cancelled):
            sender.metadata()
        # Its cancel goes in the clear then.
        self.assertEqual(sender.cancel('no')[5], 0x0A)

    def test_a_tampered_chunk_fails_authentication(self) -> None:
        sender = ghostdrop.GhostSender(b'y' * 400, 'f')
        receiver = MiniReceiver()
        handshake(sender, receiver)
        receiver.feed(sender.metadata())
        _, payload = ghostdrop.decode_frame(sender.chunk(1))
        sealed = bytearray(ghostdrop.b64(payload['payload']))
        sealed[20] ^= 1
        with self.assertRaises(InvalidTag):
            receiver.open.open(bytes(sealed), 1)
        with self.assertRaises(ValueError):
            receiver.open.open(ghostdrop.b64(payload['payload']), 2)

    def test_resume_starts_after_the_last_confirmed_chunk(self) -> None:
        sender = ghostdrop.GhostSender(b'z' * 1000, 'f')
        receiver = MiniReceiver()
        handshake(sender, receiver)
        sender.receive(ghostdrop.encode_frame('resume', {'transferID': uuid.uuid4(), 'lastConfirmedSequence': 2}))
        self.assertEqual(sender.resume_from, 0)  # another transfer's
        sender.receive(ghostdrop.encode_frame('resume', {'transferID': sender.transfer_id, 'lastConfirmedSequence': 2}))
        self.assertEqual(sender.resume_from, 3)
        self.assertEqual([ghostdrop.decode_frame(c)[1]['sequence'] for c in sender.chunks()], [3, 4, 5])

    def test_sealed_frames_from_the_receiver_open_in_order_only(self) -> None:
        sender = ghostdrop.GhostSender(b'z' * 10, 'f')
        receiver = MiniReceiver()
        handshake(sender, receiver)
        inner = ghostdrop.encode_frame('cancel', {'reason': 'File too large'})
        sealed = ghostdrop.encode_frame('encrypted', {'sequence': 0, 'combined': receiver.seal.seal(inner, 0)})
        sender.receive(sealed)
        self.assertEqual(sender.cancel_reason, 'File too large')
        with self.assertRaises(ValueError):
            sender.receive(sealed)

    def test_control_frame_k_and_chunk_k_share_a_nonce_as_the_reference_does(self) -> None:
        sender = ghostdrop.GhostSender(b'w' * 10, 'f')
        receiver = MiniReceiver()
        handshake(sender, receiver)
        metadata = ghostdrop.decode_frame(sender.metadata())[1]
        chunk = ghostdrop.decode_frame(sender.chunk(0))[1]
        self.assertEqual(ghostdrop.b64(metadata['combined'])[:12], ghostdrop.b64(chunk['payload'])[:12])
        self.assertEqual(ghostdrop.b64(chunk['payload'])[:4], hashlib.sha256(b'ghostdrop-sender').digest()[:4])


class FixtureTests(unittest.TestCase):
    def test_the_recorded_fixture_is_what_the_sender_writes_today(self) -> None:
        with open(FIXTURE) as file:
            recorded = json.load(file)
        self.assertEqual(recorded, json.loads(json.dumps(ghostdrop_fixture.fixture())))

    def test_the_fixture_reads_back_with_an_independent_receiver(self) -> None:
        fixture = ghostdrop_fixture.fixture()
        file = b''
        for session in fixture['sessions']:
            draws = iter(bytes.fromhex(r) for r in session['receiverRandom'])
            receiver = MiniReceiver(rng=lambda n: next(draws))
            for step in session['steps']:
                if step.get('from') == 'sender':
                    receiver.feed(bytes.fromhex(step['bytes']))
            self.assertEqual(ghostdrop.sas(receiver.hash), session['sas'])
            file += receiver.file
        self.assertEqual(file.hex(), fixture['file'])


if __name__ == '__main__':
    unittest.main()
