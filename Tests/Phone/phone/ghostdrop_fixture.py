"""A GhostDrop transfer with fixed randomness, recorded byte for byte: the
fixture the head unit's receiver is tested against
(Tests/GhostDropTests/Fixtures/transfer.json).

    .venv/bin/python -m phone.ghostdrop_fixture Tests/GhostDropTests/Fixtures/transfer.json

Two sessions of one transfer: the first is cut after three chunks (link
lost), the second resumes after the `resume` the receiver sends. The first
session's sender frames are also kept cut into GATT values (`gattValues`). The
receiver's ephemeral keys and nonces are fixed too (`receiverRandom`, what
the receiver under test draws from its random source), so its frames are
known in advance and recorded as `receiver` steps: helloAck, verifyAck,
resume and acks, as the receiver must write them.
"""

from __future__ import annotations

import hashlib
import json
import sys
import uuid

from phone.ghostdrop import GhostSender, encode_frame, gatt_fragments, private_key_from, x963

FILE = bytes((i * 7 + i // 13) & 0xFF for i in range(1000))
CHUNK = 180
CUT_AFTER = 3


def counter_rng(seed: bytes):
    """SHA-256(seed ‖ counter) blocks, cut to each request."""
    state = {'counter': 0}

    def draw(count: int) -> bytes:
        out = b''
        while len(out) < count:
            out += hashlib.sha256(seed + state['counter'].to_bytes(4, 'big')).digest()
            state['counter'] += 1
        return out[:count]
    return draw


def receiver_hello_ack(sender: GhostSender, random: list[bytes]) -> bytes:
    """The helloAck a receiver drawing `random` (scalar, then nonce) writes."""
    draws = iter(random)
    key = private_key_from(lambda n: next(draws))
    nonce = next(draws)
    return encode_frame('helloAck', {'sessionID': sender.session_id, 'ephemeralPublicKey': x963(key.public_key()),
                                     'nonce': nonce})


def session(seed: bytes, transfer_id: uuid.UUID | None, stop_after: int | None) -> tuple[dict, GhostSender]:
    sender = GhostSender(FILE, 'headunit.conf', 'text/plain', CHUNK, rng=counter_rng(seed))
    if transfer_id is not None:
        sender.transfer_id = transfer_id
    receiver_rng = counter_rng(seed + b'/receiver')
    random = [receiver_rng(32), receiver_rng(16)]
    steps = []

    def send(frame: bytes) -> None:
        steps.append({'from': 'sender', 'bytes': frame.hex()})

    def answer(frame: bytes) -> None:
        steps.append({'from': 'receiver', 'bytes': frame.hex()})
        for reply in sender.receive(frame):
            send(reply)

    send(sender.hello())
    answer(receiver_hello_ack(sender, random))
    send(sender.confirm(True))
    steps.append({'confirm': True})
    answer(encode_frame('verifyAck', {'accepted': True}))
    send(sender.metadata())
    if transfer_id is not None:
        answer(encode_frame('resume', {'transferID': transfer_id, 'lastConfirmedSequence': CUT_AFTER - 1}))
    last = sender.chunk_count if stop_after is None else stop_after
    for sequence in range(sender.resume_from, last):
        send(sender.chunk(sequence))
        answer(encode_frame('ack', {'cumulativeSequence': sequence, 'nackBitmap': 0}))
    if stop_after is None:
        send(sender.complete())
    else:
        steps.append({'disconnect': True})
    return {'receiverRandom': [r.hex() for r in random], 'sas': sender.sas, 'steps': steps}, sender


def fixture() -> dict:
    first, sender = session(b'ghostdrop-fixture-1', None, CUT_AFTER)
    second, resumed = session(b'ghostdrop-fixture-2', sender.transfer_id, None)
    assert resumed.resume_from == CUT_AFTER, resumed.resume_from
    # The first session's sender frames as GATT values of 20 bytes (ATT_MTU 23),
    # control frames flagged, frame ids from 1: the head unit joins them back.
    frames = [bytes.fromhex(step['bytes']) for step in first['steps'] if step.get('from') == 'sender']
    gatt = [value.hex() for number, frame in enumerate(frames, start=1)
            for value in gatt_fragments(frame, 20, number, frame[5] != 0x06)]
    return {'file': FILE.hex(), 'filename': 'headunit.conf', 'sha256': hashlib.sha256(FILE).hexdigest(),
            'sessions': [first, second], 'gattValues': gatt}


def main(argv: list[str]) -> int:
    text = json.dumps(fixture(), indent=1) + '\n'
    if len(argv) > 1:
        with open(argv[1], 'w') as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
