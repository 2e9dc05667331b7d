"""ANCS on the wire (docs/PROTOCOL.md §2, Apple's ANCS specification): identifiers,
the Control Point command decoder, the Notification Source and Data Source
encoders, and a notification as the phone holds it. No GATT here."""

from __future__ import annotations

import dataclasses
import datetime
import struct

from .encoding import truncate_utf8

COMMAND_GET_NOTIFICATION_ATTRIBUTES = 0
COMMAND_GET_APP_ATTRIBUTES = 1
COMMAND_PERFORM_NOTIFICATION_ACTION = 2
COMMAND_NAMES = {
    COMMAND_GET_NOTIFICATION_ATTRIBUTES: 'get_notification_attributes',
    COMMAND_GET_APP_ATTRIBUTES: 'get_app_attributes',
    COMMAND_PERFORM_NOTIFICATION_ACTION: 'perform_notification_action',
}

EVENT_ADDED = 0
EVENT_MODIFIED = 1
EVENT_REMOVED = 2
EVENT_NAMES = {EVENT_ADDED: 'added', EVENT_MODIFIED: 'modified', EVENT_REMOVED: 'removed'}

FLAG_SILENT = 1 << 0
FLAG_IMPORTANT = 1 << 1
FLAG_PRE_EXISTING = 1 << 2
FLAG_POSITIVE_ACTION = 1 << 3
FLAG_NEGATIVE_ACTION = 1 << 4
FLAG_NAMES = (
    (FLAG_SILENT, 'silent'),
    (FLAG_IMPORTANT, 'important'),
    (FLAG_PRE_EXISTING, 'pre_existing'),
    (FLAG_POSITIVE_ACTION, 'positive_action'),
    (FLAG_NEGATIVE_ACTION, 'negative_action'),
)

CATEGORIES = (
    'other',
    'incoming_call',
    'missed_call',
    'voicemail',
    'social',
    'schedule',
    'email',
    'news',
    'health_and_fitness',
    'business_and_finance',
    'location',
    'entertainment',
)

ATTRIBUTE_APP_IDENTIFIER = 0
ATTRIBUTE_TITLE = 1
ATTRIBUTE_SUBTITLE = 2
ATTRIBUTE_MESSAGE = 3
ATTRIBUTE_MESSAGE_SIZE = 4
ATTRIBUTE_DATE = 5
ATTRIBUTE_POSITIVE_ACTION_LABEL = 6
ATTRIBUTE_NEGATIVE_ACTION_LABEL = 7
ATTRIBUTE_NAMES = (
    'app_identifier',
    'title',
    'subtitle',
    'message',
    'message_size',
    'date',
    'positive_action_label',
    'negative_action_label',
)
# These three carry a u16 maximum length after the attribute ID.
ATTRIBUTES_WITH_MAX_LENGTH = frozenset({ATTRIBUTE_TITLE, ATTRIBUTE_SUBTITLE, ATTRIBUTE_MESSAGE})
APP_ATTRIBUTE_DISPLAY_NAME = 0
APP_ATTRIBUTE_NAMES = ('display_name',)

ACTION_POSITIVE = 0
ACTION_NEGATIVE = 1
ACTION_NAMES = {ACTION_POSITIVE: 'positive', ACTION_NEGATIVE: 'negative'}

ERROR_UNKNOWN_COMMAND = 0xA0
ERROR_INVALID_COMMAND = 0xA1
ERROR_INVALID_PARAMETER = 0xA2
ERROR_ACTION_FAILED = 0xA3
ATT_WRITE_NOT_PERMITTED = 0x03

# What happens to a notification when the client performs one of its actions.
ON_ACTION = ('remove', 'keep', 'fail')
# How the Control Point behaves after drop_subscriptions().
DROP_MODES = ('acknowledge', 'unanswered', 'normal')

DATE_FORMAT = '%Y%m%dT%H%M%S'  # ANCS: yyyyMMdd'T'HHmmSS

# Apps the phone knows the display name of (GetAppAttributes).
DEFAULT_APPS = {
    'com.google.Maps': 'Google Maps',
    'com.apple.Maps': 'Maps',
    'com.waze.iphone': 'Waze',
    'com.apple.Music': 'Music',
    'com.spotify.client': 'Spotify',
    'com.facebook.Messenger': 'Messenger',
    'com.apple.mobilemail': 'Mail',
    'com.apple.MobileSMS': 'Messages',
    'com.apple.mobilephone': 'Phone',
    'net.whatsapp.WhatsApp': 'WhatsApp',
}


class AncsError(Exception):
    """A Control Point write the Notification Provider refuses."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def category_id(value) -> int:
    """A CategoryID from its number or its name (`location`, `Location`, `IncomingCall`)."""
    if isinstance(value, bool):
        raise ValueError(f'bad category {value!r}')
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ValueError(f'CategoryID {value} is not a byte')
        return value
    if isinstance(value, str):
        key = value.replace('_', '').replace(' ', '').replace('-', '').lower()
        for index, name in enumerate(CATEGORIES):
            if name.replace('_', '') == key:
                return index
        if value.isdigit():
            return category_id(int(value))
    raise ValueError(f'unknown category {value!r}; one of {", ".join(CATEGORIES)} or a number')


def category_name(category: int) -> str:
    return CATEGORIES[category] if category < len(CATEGORIES) else f'reserved_{category}'


def format_date(moment: datetime.datetime) -> str:
    return moment.strftime(DATE_FORMAT)


def check_date(text: str) -> str:
    """A Date attribute value given by a test: must parse as yyyyMMdd'T'HHmmSS."""
    datetime.datetime.strptime(text, DATE_FORMAT)
    return text


def flag_names(flags: int) -> list[str]:
    return [name for bit, name in FLAG_NAMES if flags & bit]


def encode_notification_source(event_id: int, flags: int, category: int, count: int, uid: int) -> bytes:
    return struct.pack('<BBBBI', event_id, flags, category, min(count, 255), uid)


def encode_attribute(attribute_id: int, value: bytes) -> bytes:
    return struct.pack('<BH', attribute_id, len(value)) + value


@dataclasses.dataclass
class ControlPointCommand:
    command_id: int
    uid: int | None = None
    app: bytes | None = None
    # (attribute ID, max length or None)
    attributes: list[tuple[int, int | None]] = dataclasses.field(default_factory=list)
    action_id: int | None = None

    @property
    def name(self) -> str:
        return COMMAND_NAMES.get(self.command_id, 'unknown')

    def event_fields(self) -> dict:
        """What the client asked for, as reported in `ancs_request`."""
        fields: dict = {'command': self.name, 'command_id': self.command_id}
        if self.uid is not None:
            fields['uid'] = self.uid
        if self.app is not None:
            fields['app'] = self.app.decode('utf-8', errors='replace')
        if self.action_id is not None:
            fields['action'] = ACTION_NAMES.get(self.action_id, str(self.action_id))
        if self.command_id in (COMMAND_GET_NOTIFICATION_ATTRIBUTES, COMMAND_GET_APP_ATTRIBUTES):
            names = ATTRIBUTE_NAMES if self.command_id == COMMAND_GET_NOTIFICATION_ATTRIBUTES else APP_ATTRIBUTE_NAMES
            fields['attributes'] = [names[attribute] for attribute, _ in self.attributes]
            fields['attribute_ids'] = [attribute for attribute, _ in self.attributes]
            fields['max_lengths'] = {names[a]: limit for a, limit in self.attributes if limit is not None}
        return fields


def _attribute_list(data: bytes, known: int, with_max_length: frozenset) -> list[tuple[int, int | None]]:
    attributes: list[tuple[int, int | None]] = []
    index = 0
    while index < len(data):
        attribute = data[index]
        index += 1
        if attribute >= known:
            raise AncsError(ERROR_INVALID_COMMAND, f'attribute ID {attribute} is not defined')
        limit = None
        if attribute in with_max_length:
            if index + 2 > len(data):
                raise AncsError(ERROR_INVALID_COMMAND, f'attribute {ATTRIBUTE_NAMES[attribute]} lacks its u16 max length')
            limit = struct.unpack_from('<H', data, index)[0]
            index += 2
        attributes.append((attribute, limit))
    return attributes


def parse_control_point(data: bytes) -> ControlPointCommand:
    """Decode a Control Point write; AncsError for anything iOS would refuse
    before looking anything up."""
    if not data:
        raise AncsError(ERROR_INVALID_COMMAND, 'empty write')
    command_id = data[0]
    if command_id == COMMAND_GET_NOTIFICATION_ATTRIBUTES:
        if len(data) < 5:
            raise AncsError(ERROR_INVALID_COMMAND, 'NotificationUID missing')
        uid = struct.unpack_from('<I', data, 1)[0]
        attributes = _attribute_list(data[5:], len(ATTRIBUTE_NAMES), ATTRIBUTES_WITH_MAX_LENGTH)
        return ControlPointCommand(command_id, uid=uid, attributes=attributes)
    if command_id == COMMAND_GET_APP_ATTRIBUTES:
        end = data.find(b'\x00', 1)
        if end < 0:
            raise AncsError(ERROR_INVALID_COMMAND, 'AppIdentifier is not NUL-terminated')
        attributes = _attribute_list(data[end + 1:], len(APP_ATTRIBUTE_NAMES), frozenset())
        return ControlPointCommand(command_id, app=data[1:end], attributes=attributes)
    if command_id == COMMAND_PERFORM_NOTIFICATION_ACTION:
        if len(data) != 6:
            raise AncsError(ERROR_INVALID_COMMAND, f'PerformNotificationAction is 6 bytes, not {len(data)}')
        uid, action_id = struct.unpack_from('<IB', data, 1)
        if action_id not in ACTION_NAMES:
            raise AncsError(ERROR_INVALID_COMMAND, f'ActionID {action_id} is not defined')
        return ControlPointCommand(command_id, uid=uid, action_id=action_id)
    raise AncsError(ERROR_UNKNOWN_COMMAND, f'CommandID {command_id} is not defined')


@dataclasses.dataclass
class Notification:
    id: int
    app: str
    category: int
    title: str = ''
    subtitle: str = ''
    message: str = ''
    date: str = ''
    positive_action: str = ''
    negative_action: str = ''
    silent: bool = False
    important: bool = False
    on_action: str = 'remove'

    def flags(self, pre_existing: bool = False) -> int:
        flags = 0
        if self.silent:
            flags |= FLAG_SILENT
        if self.important:
            flags |= FLAG_IMPORTANT
        if pre_existing:
            flags |= FLAG_PRE_EXISTING
        if self.positive_action:
            flags |= FLAG_POSITIVE_ACTION
        if self.negative_action:
            flags |= FLAG_NEGATIVE_ACTION
        return flags

    def attribute_value(self, attribute: int, max_length: int | None) -> bytes:
        if attribute == ATTRIBUTE_APP_IDENTIFIER:
            return self.app.encode('utf-8')
        if attribute in ATTRIBUTES_WITH_MAX_LENGTH:
            text = {ATTRIBUTE_TITLE: self.title, ATTRIBUTE_SUBTITLE: self.subtitle, ATTRIBUTE_MESSAGE: self.message}
            return truncate_utf8(text[attribute], max_length if max_length is not None else 0xFFFF)
        if attribute == ATTRIBUTE_MESSAGE_SIZE:
            return str(len(self.message.encode('utf-8'))).encode('ascii')
        if attribute == ATTRIBUTE_DATE:
            return self.date.encode('ascii')
        if attribute == ATTRIBUTE_POSITIVE_ACTION_LABEL:
            return self.positive_action.encode('utf-8')
        if attribute == ATTRIBUTE_NEGATIVE_ACTION_LABEL:
            return self.negative_action.encode('utf-8')
        raise ValueError(f'attribute {attribute}')

    def summary(self) -> dict:
        return {
            'id': self.id,
            'app': self.app,
            'category': category_name(self.category),
            'category_id': self.category,
            'title': self.title,
            'subtitle': self.subtitle,
            'message': self.message,
            'date': self.date,
            'positive_action': self.positive_action,
            'negative_action': self.negative_action,
            'silent': self.silent,
            'important': self.important,
            'on_action': self.on_action,
        }
