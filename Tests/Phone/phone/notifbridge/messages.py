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


# An action's `type` is `ActionType`, an enum with associated values:
# JSONEncoder writes it as an object with one member named after the case,
# holding the case's labelled payload (`_0` for an unlabelled one).
def background() -> dict:
    return {'background': {}}


def text_input(placeholder: str) -> dict:
    return {'textInput': {'placeholder': placeholder}}


def dismiss() -> dict:
    return {'dismiss': {}}


def unknown_action(code: int) -> dict:
    """`unknown(UInt8)`: an action kind the app itself did not know."""
    return {'unknown': {'_0': code}}


def action(action_id: str, title: str, action_type: dict) -> dict:
    return {'id': action_id, 'title': title, 'type': action_type}


def attachment(uti: str, data: bytes, *, attachment_id: uuid.UUID | None = None,
               unavailable_reason: str | None = None) -> dict:
    return {'id': attachment_id or uuid.uuid4(), 'uti': uti, 'data': data, 'unavailableReason': unavailable_reason}


def notification(app: str, notification_id: str, *, title: str | None = None, subtitle: str | None = None,
                 body: str | None = None, source_name: str | None = None, thread: str | None = None,
                 has_sound: bool = False, attributes: int = 0, actions: list[dict] | None = None,
                 source_icon: bytes = b'', context_icon: bytes = b'', attachments: list[dict] | None = None,
                 received_at: SwiftDate | None = None, transport_session: uuid.UUID | None = None,
                 display_date_is_all_day: bool = False, summary: str = '', rich_body: bytes | None = None,
                 should_alert: bool = True, suppressed_by_focus: bool = False, ignore_silent_mode: bool = False,
                 alert_kind: str = 'notification', extra: dict | None = None) -> dict:
    """A notification as Event v3 carries it: every member of the app's
    `NotifWire.Notification` in its declaration order, the non-optional
    ones always present (empty strings, `false`, `[]`, empty Data as ""),
    the optional ones (`transportSessionID`, `richBody`) only when set;
    `sourceIdentifier` is the app's bundle id."""
    received_at = received_at or SwiftDate.now()
    fields = {
        'title': title or '', 'subtitle': subtitle or '', 'body': body or '', 'sourceName': source_name or '',
        'sourceIdentifier': app, 'notificationIdentifier': notification_id, 'threadIdentifier': thread or '',
        'hasSound': has_sound, 'attributes': attributes, 'actions': actions or [],
        'sourceIcon': source_icon, 'contextIcon': context_icon, 'attachments': attachments or [],
        'receivedAt': received_at, 'transportSessionID': uuid_text(transport_session) if transport_session else None,
        'deliveryDate': received_at, 'displayDate': received_at, 'displayDateIsAllDay': display_date_is_all_day,
        'summary': summary, 'richBody': rich_body, 'shouldAlert': should_alert,
        'isSuppressedByFocus': suppressed_by_focus, 'ignoreSilentMode': ignore_silent_mode,
        'alertKind': alert_kind, 'isCleared': False,
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
