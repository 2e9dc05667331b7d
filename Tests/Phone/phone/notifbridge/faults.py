"""What a broken or hostile phone sends a NotifBridge receiver, for the
receiver's tests. Each returns what it sent and whether a receipt came;
the expected outcome is in the docstring (the receiver's rules)."""

from __future__ import annotations

import asyncio
import base64
import json
import uuid

from . import framing, messages, swift_json
from .sender import KEYS_UUID, NOTIFICATIONS_UUID, DeliveryFailed, NotifBridgeSender

MALFORMED_FRAMES = ('no_start', 'no_wrapper', 'restart', 'key_overflow')
# Over the head unit's 16 KiB key-frame cap (docs/NOTIFBRIDGE.md).
KEY_OVERFLOW_BYTES = 17 * 1024
MALFORMED_JSON = ('envelope', 'key', 'event', 'event_version')


def _event(app: str, title: str, body: str, notification_id: str | None = None) -> tuple[bytes, dict]:
    notification_id = notification_id or messages.uuid_text(uuid.uuid4())
    event_id = uuid.uuid4()
    event = messages.event('add', event_id, notification_fields=messages.notification(app, notification_id,
                                                                                      title=title, body=body))
    return event, {'event_id': messages.uuid_text(event_id), 'notification_id': notification_id, 'app': app}


async def duplicate(sender: NotifBridgeSender, timeout: float | None = None) -> dict:
    """The last envelope again, byte for byte: acknowledged again, applied once."""
    if sender.last_envelope is None:
        raise DeliveryFailed('no envelope sent yet')
    envelope, receipt = sender.last_envelope
    received = await sender.deliver('duplicate', NOTIFICATIONS_UUID, envelope, receipt, retries=0, timeout=timeout)
    return {'receipt': receipt, 'received': received}


async def tampered(sender: NotifBridgeSender, app: str, title: str, body: str, timeout: float = 3.0) -> dict:
    """An envelope with one ciphertext bit flipped: refused, no receipt."""
    event, described = _event(app, title, body)
    generation = sender.newest()
    envelope, receipt = sender.seal(event, generation)
    fields = json.loads(envelope)
    blob = bytearray(base64.b64decode(fields['data']))
    blob[12] ^= 0x01  # the first ciphertext byte, after the nonce
    tampered_envelope = messages.envelope(generation.session, bytes(blob), uuid.UUID(receipt))
    received = await sender.deliver('tampered', NOTIFICATIONS_UUID, tampered_envelope, receipt, retries=0,
                                    timeout=timeout)
    return {**described, 'receipt': receipt, 'received': received}


async def before_key(sender: NotifBridgeSender, app: str, title: str, body: str, delay: float = 1.0,
                     timeout: float | None = None) -> dict:
    """A new generation prepared, then an envelope sealed with it sent before
    its activate: the envelope waits unacknowledged and is opened (and
    acknowledged) after the activation."""
    generation = sender.new_generation()
    if not await sender.prepare(generation):
        raise DeliveryFailed('no receipt for prepare')
    event, described = _event(app, title, body)
    envelope, receipt = sender.seal(event, generation)
    sender.last_envelope = (envelope, receipt)
    early = await sender.deliver('envelope', NOTIFICATIONS_UUID, envelope, receipt, retries=0, timeout=delay)
    if not await sender.activate(generation):
        raise DeliveryFailed('no receipt for activate')
    received = early or await _receipt_seen(sender, receipt, sender.receipt_timeout if timeout is None else timeout)
    return {**described, 'receipt': receipt, 'received_before_activate': early, 'received': received,
            'generation': generation.describe()}


async def _receipt_seen(sender: NotifBridgeSender, receipt: str, timeout: float) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while receipt not in sender.receipts:
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def malformed_frame(sender: NotifBridgeSender, variant: str, app: str = 'com.google.Maps',
                          title: str = 'In 300 m', body: str = 'Keep right', timeout: float = 3.0,
                          size: int = KEY_OVERFLOW_BYTES) -> dict:
    """`no_start`: a sealed envelope's chunks and END without START (dropped,
    every chunk still acked, no receipt). `no_wrapper`: a START value
    without NBW1, an unwrapped frame begun and never ended (no ack, no
    receipt). `restart`: START and half an envelope,
    then the whole envelope from START (the half is dropped, the whole one
    is opened and acknowledged). `key_overflow`: a real `prepare` padded
    with an unknown member past `size` bytes on …8C46 (abandoned at the
    receiver's cap: no receipt, where an uncapped receiver would take it)."""
    if variant not in MALFORMED_FRAMES:
        raise ValueError(f'variant is one of {", ".join(MALFORMED_FRAMES)}')
    if variant == 'key_overflow':
        generation = sender.new_generation()
        receipt = uuid.uuid4()
        packet = json.loads(messages.prepare(generation.exchange_id, receipt, generation.public_key, generation.seed))
        packet['padding'] = 'A' * max(0, size - len(json.dumps(packet)))
        payload = swift_json.encode(packet)
        received = await sender.deliver('key_overflow', KEYS_UUID, payload, messages.uuid_text(receipt), retries=0,
                                        timeout=timeout)
        return {'variant': variant, 'receipt': messages.uuid_text(receipt), 'received': received,
                'bytes': len(payload)}
    event, described = _event(app, title, body)
    envelope, receipt = sender.seal(event)
    values = framing.frame_values(envelope, framing.WRAPPED_PAYLOAD)
    if variant == 'no_start':
        await sender.send_values(NOTIFICATIONS_UUID, values[1:])
    elif variant == 'no_wrapper':
        await sender.send_values(NOTIFICATIONS_UUID, [framing.START], wrapped=False)
    else:
        await sender.send_values(NOTIFICATIONS_UUID, values[:max(2, len(values) // 2)])
        sender.last_envelope = (envelope, receipt)
        received = await sender.deliver('envelope', NOTIFICATIONS_UUID, envelope, receipt)
        return {**described, 'variant': variant, 'receipt': receipt, 'received': received}
    return {**described, 'variant': variant, 'receipt': receipt,
            'received': await _receipt_seen(sender, receipt, timeout)}


async def malformed_json(sender: NotifBridgeSender, variant: str, timeout: float = 3.0) -> dict:
    """`envelope`: a frame on …8C47 that is not JSON (refused, no receipt).
    `key`: a key packet cut short on …8C46 (refused, no receipt).
    `event`: a proper envelope around a plaintext that is not JSON, and
    `event_version`: an Event of version 2 (both opened, logged and
    acknowledged: sending them again cannot mend them)."""
    if variant not in MALFORMED_JSON:
        raise ValueError(f'variant is one of {", ".join(MALFORMED_JSON)}')
    receipt = messages.uuid_text(uuid.uuid4())
    if variant == 'envelope':
        payload = ('{"sessionID":"' + messages.uuid_text(sender.newest().session) + '","data":"AAAA",'
                   '"receiptID":"' + receipt + '"').encode()
        channel = NOTIFICATIONS_UUID
    elif variant == 'key':
        payload = ('{"phase":"prepare","exchangeID":"' + messages.uuid_text(uuid.uuid4()) + '","receiptID":"'
                   + receipt + '","publicKey":"AAAA').encode()
        channel = KEYS_UUID
    else:
        plaintext = (b'{"version":3,"id":"x","kind":"add","notification":{"title":"cut'
                     if variant == 'event' else
                     b'{"version":2,"id":"' + receipt.encode() + b'","kind":"removeAll","sentAt":1}')
        payload, receipt = sender.seal(plaintext)
        channel = NOTIFICATIONS_UUID
    received = await sender.deliver(f'malformed_{variant}', channel, payload, receipt, retries=0, timeout=timeout)
    return {'variant': variant, 'receipt': receipt, 'received': received, 'bytes': len(payload)}
