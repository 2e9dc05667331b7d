"""NotifBridge messages as the phone writes and reads them (JSON in Swift's
JSONEncoder form, swift_json.py): key-exchange packets, envelopes, Event v3,
receipts and reverse commands, and the HPKE info and export contexts."""

from __future__ import annotations

import base64
import json
import uuid

from .swift_json import SwiftDate, encode

RECEIPT_KIND = 'notifbridge.accepted.v1'
EVENT_VERSION = 3
HOST_TO_ACCESSORY = '-HostToAccessory-'
ACCESSORY_TO_HOST = '-AccessoryToHost-'


def uuid_text(value: uuid.UUID) -> str:
    """What `UUID.uuidString` gives: uppercase."""
    return str(value).upper()


def info(ciphersuite: str, version: str, identifier: str) -> bytes:
    return f'{ciphersuite}-{version}-{identifier}'.encode()


def context(info_bytes: bytes, direction: str, session: uuid.UUID) -> bytes:
    """The export context of one session and direction (HOST_TO_ACCESSORY or ACCESSORY_TO_HOST)."""
    return info_bytes + direction.encode() + uuid_text(session).encode()


def prepare(exchange: uuid.UUID, receipt: uuid.UUID, public_key: bytes, seed: bytes) -> bytes:
    return encode({'phase': 'prepare', 'exchangeID': exchange, 'receiptID': receipt,
                   'publicKey': public_key, 'privateKeySeed': seed})


def activate(exchange: uuid.UUID, receipt: uuid.UUID, encapsulated_key: bytes, identifier: str,
             ciphersuite: str, version: str) -> bytes:
    return encode({'phase': 'activate', 'exchangeID': exchange, 'receiptID': receipt,
                   'encapsulatedKey': encapsulated_key, 'identifier': identifier,
                   'ciphersuite': ciphersuite, 'version': version})


def legacy_keys(receipt: uuid.UUID | None, public_key: bytes, seed: bytes, encapsulated_key: bytes,
                identifier: str, ciphersuite: str, version: str) -> bytes:
    """The older single-shot key packet: no phase, no exchange id, key pair and
    encapsulation together."""
    return encode({'identifier': identifier, 'ciphersuite': ciphersuite, 'version': version,
                   'encapsulatedKey': encapsulated_key, 'publicKey': public_key, 'privateKeySeed': seed,
                   'receiptID': receipt})


def envelope(session: uuid.UUID, sealed: bytes, receipt: uuid.UUID | None) -> bytes:
    return encode({'sessionID': session, 'data': sealed, 'receiptID': receipt})


def notification(app: str, notification_id: str, *, title: str | None = None, subtitle: str | None = None,
                 body: str | None = None, source_name: str | None = None, thread: str | None = None,
                 has_sound: bool = True, should_alert: bool = True, attributes: int = 0,
                 actions: list[dict] | None = None, alert_kind: str = 'notification',
                 received_at: SwiftDate | None = None, extra: dict | None = None) -> dict:
    """A notification as Event v3 carries it; `sourceIdentifier` is the app's bundle id."""
    received_at = received_at or SwiftDate.now()
    fields = {
        'title': title, 'subtitle': subtitle, 'body': body, 'sourceName': source_name,
        'sourceIdentifier': app, 'notificationIdentifier': notification_id, 'threadIdentifier': thread,
        'hasSound': has_sound, 'shouldAlert': should_alert, 'isSuppressedByFocus': False,
        'ignoreSilentMode': False, 'isCleared': False, 'displayDateIsAllDay': False,
        'attributes': attributes, 'actions': actions or [], 'alertKind': alert_kind,
        'receivedAt': received_at, 'deliveryDate': received_at,
    }
    fields.update(extra or {})
    return fields


def event(kind: str, event_id: uuid.UUID, *, notification_fields: dict | None = None,
          identity: dict | None = None, result: dict | None = None, sent_at: SwiftDate | None = None) -> bytes:
    """Event v3: `identity` only with remove; `notification` with add/update;
    `result` with commandResult."""
    return encode({'version': EVENT_VERSION, 'id': event_id, 'kind': kind, 'notification': notification_fields,
                   'identity': identity, 'result': result, 'sentAt': sent_at or SwiftDate.now()})


def identity(app: str, notification_id: str) -> dict:
    return {'sourceIdentifier': app, 'notificationIdentifier': notification_id}


def parse_object(frame: bytes) -> dict | None:
    """A reverse frame's JSON object, None when it is not one."""
    try:
        value = json.loads(frame.decode('utf-8'))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def receipt_id(message: dict) -> str | None:
    """The id of a receipt `{"kind":"notifbridge.accepted.v1","id":...}` (uppercased)."""
    if message.get('kind') == RECEIPT_KIND and isinstance(message.get('id'), str):
        return message['id'].upper()
    return None


def reverse_envelope(message: dict) -> tuple[uuid.UUID, bytes] | None:
    """(session, sealed) of an envelope from the receiver, None if it is not one."""
    try:
        return uuid.UUID(message['sessionID']), base64.b64decode(message['data'], validate=True)
    except (KeyError, TypeError, ValueError):
        return None
