"""The GhostDrop app on the iPhone as a sender, sans-I/O: the bytes it writes
on the L2CAP channel (or, cut up, on the data/control characteristics) and
what it does with the receiver's answers. Written from the public GhostDrop
source (TastyHeadphones/GhostDrop: GhostFrameCodec, Handshake,
SessionCryptoContext, SessionActor), with Python `cryptography`.

    sender = GhostSender(b'...file...', 'update.bundle', rng=os.urandom)
    channel.write(sender.hello())
    for frame in sender.receive(bytes_from_channel): channel.write(frame)
    sender.sas                         # the code the phone shows
    channel.write(sender.confirm())    # verifyAck(true): "Codes match"
    # ... receiver's verifyAck(true) arrives through receive()
    channel.write(sender.metadata())   # sealed, control sequence 0
    # ... a `resume` may arrive: sender.resume_from
    for frame in sender.chunks(): channel.write(frame)
    channel.write(sender.complete())   # sealed, with the file's SHA-256

Wire facts it follows:
- frame: b'GHST', version 1, kind byte, body length (UInt32 big-endian),
  JSON body `{"<kind>": {...}}` as JSONEncoder writes it (swift_json);
- handshake: ephemeral P-256, 16-byte nonces; transcript "GhostDrop-v1" ‖
  session UUID bytes ‖ (key, nonce) of the byte-wise smaller key ‖ the other;
  HKDF-SHA256(ECDH X, salt SHA-256(transcript), "GhostDrop Session Keys", 64);
  SAS = first 4 hash bytes big-endian mod 10^6, 6 digits;
- directional keys HKDF-SHA256(first 32 bytes, salt "ghostdrop-directional",
  info "sender"/"receiver", 32); nonce SHA-256("ghostdrop-sender")[:4] ‖
  sequence (u64 BE); AAD the sequence; combined = nonce ‖ ciphertext ‖ tag;
- control frames after verification (metadata, complete, cancel) go as
  `encrypted` with a control sequence from 0; data chunks as `data` whose
  payload is sealed under the chunk's sequence (so control k and chunk k
  share a nonce, as the reference does).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import uuid
from dataclasses import dataclass, field
from typing import Callable, Iterator

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from phone.notifbridge import swift_json

MAGIC = b'GHST'
VERSION = 1
KINDS = {
    'hello': 0x01, 'helloAck': 0x02, 'verify': 0x03, 'verifyAck': 0x04, 'metadata': 0x05, 'dataPayload': 0x06,
    'ack': 0x07, 'resume': 0x08, 'complete': 0x09, 'cancel': 0x0A, 'ping': 0x0B, 'encrypted': 0x0C,
}
KEYS = {value: key for key, value in KINDS.items()}

SERVICE_UUID = 'BFA6E968-0F36-4888-8F63-C8EC01385E67'
DATA_UUID = 'A0F2FA1D-F0E6-43F3-8B8A-642D7E6A0603'
CONTROL_UUID = 'A0F2FA1D-F0E6-43F3-8B8A-642D7E6A0604'
CAPABILITIES_UUID = 'A0F2FA1D-F0E6-43F3-8B8A-642D7E6A0605'


def capabilities(supports_l2cap: bool = True, max_chunk: int = 180, max_window: int = 32) -> dict:
    return {'supportsL2CAP': supports_l2cap, 'maxChunk': max_chunk, 'maxWindow': max_window, 'protocolVersion': 1}


def encode_frame(key: str, payload: dict) -> bytes:
    body = swift_json.encode({key: payload})
    return MAGIC + bytes([VERSION, KINDS[key]]) + struct.pack('>I', len(body)) + body


class FrameError(Exception):
    pass


def decode_frame(frame: bytes) -> tuple[str, dict]:
    """(key, payload) of exactly one frame."""
    if len(frame) < 10 or frame[:4] != MAGIC or frame[4] != VERSION or frame[5] not in KEYS:
        raise FrameError(f'not a GHST frame: {frame[:10].hex()}')
    (length,) = struct.unpack('>I', frame[6:10])
    if len(frame) != 10 + length:
        raise FrameError('length differs from the header')
    key = KEYS[frame[5]]
    body = json.loads(frame[10:])
    if key not in body:
        raise FrameError(f'{key} body without its member')
    return key, body[key]


class FrameReader:
    """Whole frames out of a byte stream."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[str, dict]]:
        self.buffer += data
        frames = []
        while len(self.buffer) >= 10:
            (length,) = struct.unpack('>I', self.buffer[6:10])
            if len(self.buffer) < 10 + length:
                break
            frames.append(decode_frame(bytes(self.buffer[:10 + length])))
            del self.buffer[:10 + length]
        return frames


def gatt_fragments(frame: bytes, packet_size: int, frame_id: int, control: bool) -> list[bytes]:
    """GATTTransport's values: b'GD', frame id (u32 BE), index and count (u16 BE),
    flags (1: control), then at most packet_size - 11 bytes of the frame."""
    capacity = packet_size - 11
    count = max(1, -(-len(frame) // capacity))
    return [b'GD' + struct.pack('>IHHB', frame_id, index, count, 1 if control else 0)
            + frame[index * capacity:(index + 1) * capacity] for index in range(count)]


class GattJoiner:
    """Frames out of GATT values, joined by frame id in any order."""

    def __init__(self) -> None:
        self.partial: dict[int, dict[int, bytes]] = {}

    def feed(self, value: bytes) -> bytes | None:
        if len(value) < 11 or value[:2] != b'GD':
            raise FrameError('not a GD fragment')
        frame_id, index, count, _ = struct.unpack('>IHHB', value[2:11])
        pieces = self.partial.setdefault(frame_id, {})
        pieces[index] = value[11:]
        if len(pieces) < count:
            return None
        del self.partial[frame_id]
        return b''.join(pieces[i] for i in range(count))


def b64(data: str) -> bytes:
    import base64
    return base64.b64decode(data, validate=True)


def x963(public_key: ec.EllipticCurvePublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def private_key_from(rng: Callable[[int], bytes]) -> ec.EllipticCurvePrivateKey:
    """A P-256 key whose scalar is 32 bytes of `rng` (drawn again when out of range)."""
    order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    for _ in range(16):
        scalar = int.from_bytes(rng(32), 'big')
        if 0 < scalar < order:
            return ec.derive_private_key(scalar, ec.SECP256R1())
    raise RuntimeError('no P-256 scalar from the random source')


def transcript(session_id: uuid.UUID, key_a: bytes, nonce_a: bytes, key_b: bytes, nonce_b: bytes) -> bytes:
    first, second = ((key_a, nonce_a), (key_b, nonce_b)) if key_a < key_b else ((key_b, nonce_b), (key_a, nonce_a))
    return b'GhostDrop-v1' + session_id.bytes + first[0] + first[1] + second[0] + second[1]


def hkdf(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def sas(transcript_hash: bytes) -> str:
    return f'{int.from_bytes(transcript_hash[:4], "big") % 1_000_000:06d}'


@dataclass
class Direction:
    """One direction's AES-256-GCM key and nonce prefix."""

    key: bytes
    prefix: bytes

    @classmethod
    def of(cls, encryption_material: bytes, label: str) -> 'Direction':
        key = hkdf(encryption_material, b'ghostdrop-directional', label.encode(), 32)
        return cls(key, hashlib.sha256(f'ghostdrop-{label}'.encode()).digest()[:4])

    def seal(self, plaintext: bytes, sequence: int) -> bytes:
        nonce = self.prefix + struct.pack('>Q', sequence)
        return nonce + AESGCM(self.key).encrypt(nonce, plaintext, struct.pack('>Q', sequence))

    def open(self, combined: bytes, sequence: int) -> bytes:
        nonce = self.prefix + struct.pack('>Q', sequence)
        if combined[:12] != nonce:
            raise ValueError('unexpected nonce')
        return AESGCM(self.key).decrypt(nonce, combined[12:], struct.pack('>Q', sequence))


class Cancelled(Exception):
    pass


@dataclass
class GhostSender:
    data: bytes
    filename: str
    mime_type: str = 'application/octet-stream'
    chunk_size: int = 180
    rng: Callable[[int], bytes] = os.urandom
    caps: dict = field(default_factory=capabilities)

    def __post_init__(self) -> None:
        self.reader = FrameReader()
        self.session_id = uuid.UUID(bytes=self.rng(16), version=4)
        self.device_id = uuid.UUID(bytes=self.rng(16), version=4)
        self.transfer_id = uuid.UUID(bytes=self.rng(16), version=4)
        self.key = private_key_from(self.rng)
        self.public_key = x963(self.key.public_key())
        self.nonce = self.rng(16)
        self.sas: str | None = None
        self.transcript_hash: bytes | None = None
        self.seal_direction: Direction | None = None
        self.open_direction: Direction | None = None
        self.confirmed = False
        self.peer_verified: bool | None = None
        self.control_sequence = 0
        self.opened_sequence = -1
        self.resume_from = 0
        self.acked: int | None = None
        self.nacks: list[int] = []
        self.cancel_reason: str | None = None
        self.digest = hashlib.sha256(self.data).digest()

    @property
    def chunk_count(self) -> int:
        return (len(self.data) + self.chunk_size - 1) // self.chunk_size

    def hello(self) -> bytes:
        return encode_frame('hello', {
            'sessionID': self.session_id, 'deviceID': {'rawValue': self.device_id},
            'ephemeralPublicKey': self.public_key, 'nonce': self.nonce, 'capabilities': self.caps})

    def receive(self, data: bytes) -> list[bytes]:
        """The receiver's bytes; returns the frames to write in answer."""
        out = []
        for key, payload in self.reader.feed(data):
            out += self._handle(key, payload)
        return out

    def _handle(self, key: str, payload: dict) -> list[bytes]:
        if key == 'helloAck':
            return [self._hello_ack(payload)]
        if key == 'verifyAck':
            self.peer_verified = payload['accepted']
        elif key == 'ack':
            self.acked = payload['cumulativeSequence']
            bitmap = payload['nackBitmap']
            self.nacks = [self.acked + 1 + bit for bit in range(64) if bitmap >> bit & 1]
        elif key == 'resume':
            if payload['transferID'] == str(self.transfer_id).upper():
                self.resume_from = min(payload['lastConfirmedSequence'] + 1, self.chunk_count)
                # The receiver holds every chunk up to there: as good as a
                # cumulative ack, so the window counts from the resume point.
                if self.acked is None or self.acked < self.resume_from - 1:
                    self.acked = self.resume_from - 1
        elif key == 'cancel':
            self.cancel_reason = payload['reason']
        elif key == 'encrypted':
            if payload['sequence'] <= self.opened_sequence:
                raise ValueError('replayed sealed frame')
            inner_key, inner = decode_frame(self.open_direction.open(b64(payload['combined']), payload['sequence']))
            self.opened_sequence = payload['sequence']
            return self._handle(inner_key, inner)
        return []

    def _hello_ack(self, ack: dict) -> bytes:
        if ack['sessionID'] != str(self.session_id).upper():
            raise ValueError('helloAck for another session')
        peer_key, peer_nonce = b64(ack['ephemeralPublicKey']), b64(ack['nonce'])
        peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), peer_key)
        shared = self.key.exchange(ec.ECDH(), peer)
        self.transcript_hash = hashlib.sha256(
            transcript(self.session_id, self.public_key, self.nonce, peer_key, peer_nonce)).digest()
        material = hkdf(shared, self.transcript_hash, b'GhostDrop Session Keys', 64)
        self.seal_direction = Direction.of(material[:32], 'sender')
        self.open_direction = Direction.of(material[:32], 'receiver')
        self.sas = sas(self.transcript_hash)
        return encode_frame('verify', {'transcriptHash': self.transcript_hash, 'sasCode': self.sas})

    def confirm(self, matches: bool = True) -> bytes:
        self.confirmed = matches
        return encode_frame('verifyAck', {'accepted': matches})

    @property
    def verified(self) -> bool:
        return self.confirmed and self.peer_verified is True

    def seal_control(self, key: str, payload: dict) -> bytes:
        inner = encode_frame(key, payload)
        sequence = self.control_sequence
        self.control_sequence += 1
        return encode_frame('encrypted', {'sequence': sequence, 'combined': self.seal_direction.seal(inner, sequence)})

    def metadata(self) -> bytes:
        if not self.verified:
            raise Cancelled('the codes are not confirmed on both sides')
        return self.seal_control('metadata', {
            'transferID': self.transfer_id, 'filename': self.filename, 'size': len(self.data),
            'mimeType': self.mime_type, 'sha256': self.digest, 'chunkSize': self.chunk_size})

    def chunk(self, sequence: int) -> bytes:
        plain = self.data[sequence * self.chunk_size:(sequence + 1) * self.chunk_size]
        return encode_frame('dataPayload', {'sequence': sequence, 'payload': self.seal_direction.seal(plain, sequence)})

    def chunks(self, start: int | None = None, end: int | None = None) -> Iterator[bytes]:
        for sequence in range(self.resume_from if start is None else start, self.chunk_count if end is None else end):
            yield self.chunk(sequence)

    def complete(self) -> bytes:
        return self.seal_control('complete', {'transferID': self.transfer_id, 'sha256': self.digest})

    def cancel(self, reason: str) -> bytes:
        if self.seal_direction is not None and self.verified:
            return self.seal_control('cancel', {'reason': reason})
        return encode_frame('cancel', {'reason': reason})
