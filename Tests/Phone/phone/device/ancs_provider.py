"""ANCS Notification Provider: the iPhone's side of Apple's Notification Center
Service (docs/PROTOCOL.md §2), driven by tests and demos.

- The phone holds notifications (posted, modified and removed through the API).
  Each has a stable `id` for the API; the client sees a NotificationUID.
- A session runs per connection from the moment the client enables Notification
  Source notifications until it disables them, the link ends, the user switches
  "Share System Notifications" off, or the phone drops its subscriptions. A bonded
  client whose subscription persisted gets a session as soon as the link is
  encrypted. Every enabling write starts a new session, also when one is running
  (iOS accepts redundant CCCD writes without complaint).
- At session start every existing notification is sent as Added with the
  PreExisting flag. Each session numbers the notifications again from a phone-wide
  counter: UIDs increase and a UID never means anything outside its session.
- Control Point: GetNotificationAttributes, GetAppAttributes and
  PerformNotificationAction, answered on the Data Source in notifications of at
  most ATT_MTU - 3 bytes, only if the client subscribed to the Data Source (a
  GATT server cannot notify otherwise; the write itself succeeds). Errors are ATT
  application errors in the Write Response, and then nothing comes:
  0xA0 unknown CommandID, 0xA1 malformed command (too short, an attribute ID this
  specification does not define, Title/Subtitle/Message without their u16 max
  length, a Date attribute of an action, an ActionID other than 0/1),
  0xA2 a UID (or app identifier) that names nothing in this session, including the
  liveness probe UID 0xFFFFFFFF, 0xA3 an action the notification does not offer.
- "Share System Notifications" off (iOS 13+, per accessory): the CCCD writes still
  succeed but no notification is ever sent, and every Control Point write gets ATT
  0x03 Write Not Permitted. That is what production ANCS clients observe (see the
  README for the source).
- Dropped subscriptions: the phone forgets the client's Notification Source and
  Data Source subscriptions without a word (CCCD reads then say 0x0000) and the
  session ends silently. The Control Point then either acknowledges writes without
  doing anything (`acknowledge`, default), holds the Write Response back
  (`unanswered`), or keeps answering (`normal`). A new CCCD write recovers.
"""

from __future__ import annotations

import dataclasses
import datetime
import struct
from collections.abc import Callable

from bumble import att

from .ancs_protocol import (
    ACTION_NAMES,
    ACTION_POSITIVE,
    ATT_WRITE_NOT_PERMITTED,
    COMMAND_GET_APP_ATTRIBUTES,
    COMMAND_GET_NOTIFICATION_ATTRIBUTES,
    COMMAND_NAMES,
    DEFAULT_APPS,
    DROP_MODES,
    ERROR_ACTION_FAILED,
    ERROR_INVALID_PARAMETER,
    EVENT_ADDED,
    EVENT_MODIFIED,
    EVENT_NAMES,
    EVENT_REMOVED,
    ON_ACTION,
    AncsError,
    ControlPointCommand,
    Notification,
    category_id,
    category_name,
    check_date,
    encode_attribute,
    encode_notification_source,
    flag_names,
    format_date,
    parse_control_point,
)
from .apple_services import DATA_SOURCE, NOTIFICATION_SOURCE, GattLink
from .encoding import fragments


class Session:
    """One client's ANCS session: which UID each notification has in it."""

    def __init__(self, connection, peer: str, reason: str) -> None:
        self.connection = connection
        self.peer = peer
        self.reason = reason
        self.uid_of: dict[int, int] = {}
        self.id_of: dict[int, int] = {}

    def bind(self, notification_id: int, uid: int) -> None:
        self.uid_of[notification_id] = uid
        self.id_of[uid] = notification_id

    def unbind(self, notification_id: int) -> int | None:
        uid = self.uid_of.pop(notification_id, None)
        if uid is not None:
            self.id_of.pop(uid, None)
        return uid


@dataclasses.dataclass
class DropMode:
    control_point: str = 'acknowledge'
    # `unanswered`: seconds the Write Response is held back (None: never sent).
    delay: float | None = None


class NotificationProvider:
    def __init__(self, link: GattLink, now: Callable[[], datetime.datetime] = datetime.datetime.now) -> None:
        self.link = link
        self._now = now
        self.apps: dict[str, str] = dict(DEFAULT_APPS)
        self.notifications: dict[int, Notification] = {}
        self.sharing = True
        self.sessions: dict[object, Session] = {}
        self.dropped: dict[object, DropMode] = {}
        self._next_id = 1
        self._next_uid = 0

    def _emit(self, event: str, **fields) -> None:
        self.link.emit(event, **fields)

    # ------------------------------------------------------------- phone side
    def uids(self, notification_id: int) -> dict[str, int]:
        """The UID of a notification in each running session, by peer."""
        return {
            session.peer: session.uid_of[notification_id]
            for session in self.sessions.values()
            if notification_id in session.uid_of
        }

    def describe(self, notification: Notification) -> dict:
        uids = self.uids(notification.id)
        return {**notification.summary(), 'uid': next(iter(uids.values()), None), 'uids': uids}

    def resolve(self, notification_id: int | None = None, uid: int | None = None) -> Notification:
        """The notification with this id, or with this UID in a running session."""
        if notification_id is not None:
            found = self.notifications.get(int(notification_id))
            if found is None:
                raise KeyError(f'no notification with id {notification_id}')
            return found
        if uid is not None:
            for session in self.sessions.values():
                if int(uid) in session.id_of:
                    return self.notifications[session.id_of[int(uid)]]
            raise KeyError(f'no notification with UID {uid} in a running session')
        raise KeyError('give the notification id (or its uid)')

    def list(self) -> list[dict]:
        return [self.describe(notification) for notification in self.notifications.values()]

    def install_app(self, app: str, display_name: str) -> None:
        self.apps[app] = display_name

    def _count(self, category: int) -> int:
        return sum(1 for n in self.notifications.values() if n.category == category)

    async def post(
        self,
        app: str,
        category=0,
        title: str = '',
        subtitle: str = '',
        message: str = '',
        date: str | datetime.datetime | None = None,
        positive_action: str = '',
        negative_action: str = '',
        silent: bool = False,
        important: bool = False,
        app_name: str | None = None,
        on_action: str = 'remove',
    ) -> Notification:
        if not isinstance(app, str) or not app:
            raise ValueError('a notification needs an app identifier')
        if on_action not in ON_ACTION:
            raise ValueError(f'on_action is one of {", ".join(ON_ACTION)}')
        notification = Notification(
            id=self._next_id,
            app=app,
            category=category_id(category),
            title=str(title),
            subtitle=str(subtitle),
            message=str(message),
            date=self._date(date),
            positive_action=str(positive_action),
            negative_action=str(negative_action),
            silent=bool(silent),
            important=bool(important),
            on_action=on_action,
        )
        self._next_id += 1
        if app_name:
            self.apps[app] = str(app_name)
        else:
            self.apps.setdefault(app, app.rsplit('.', 1)[-1])
        self.notifications[notification.id] = notification
        for session in self.sessions.values():
            session.bind(notification.id, self._new_uid())
        self._emit('ancs_notification', action='posted', **self.describe(notification))
        for session in list(self.sessions.values()):
            await self._send_source(session, EVENT_ADDED, notification)
        return notification

    async def modify(self, notification: Notification, **changes) -> Notification:
        allowed = {
            'title', 'subtitle', 'message', 'date', 'positive_action', 'negative_action',
            'silent', 'important', 'category', 'on_action',
        }
        unknown = set(changes) - allowed
        if unknown:
            raise ValueError(f'cannot change {", ".join(sorted(unknown))}')
        for key, value in changes.items():
            if value is None:
                continue
            if key == 'category':
                value = category_id(value)
            elif key == 'date':
                value = self._date(value)
            elif key in ('silent', 'important'):
                value = bool(value)
            elif key == 'on_action' and value not in ON_ACTION:
                raise ValueError(f'on_action is one of {", ".join(ON_ACTION)}')
            else:
                value = str(value)
            setattr(notification, key, value)
        self._emit('ancs_notification', action='modified', **self.describe(notification))
        for session in list(self.sessions.values()):
            if notification.id in session.uid_of:
                await self._send_source(session, EVENT_MODIFIED, notification)
        return notification

    async def remove(self, notification: Notification, reason: str = 'removed') -> None:
        if self.notifications.pop(notification.id, None) is None:
            return
        self._emit('ancs_notification', action='removed', reason=reason, **self.describe(notification))
        for session in list(self.sessions.values()):
            if notification.id in session.uid_of:
                await self._send_source(session, EVENT_REMOVED, notification)
                session.unbind(notification.id)

    async def set_sharing(self, on: bool) -> None:
        """The user's "Share System Notifications" switch for the accessories."""
        if on == self.sharing:
            return
        self.sharing = on
        self._emit('ancs_sharing', on=on)
        if not on:
            for connection in list(self.sessions):
                self._end_session(connection, 'sharing_off')
            return
        for connection in self.link.connections():
            if self.link.is_subscribed(connection, NOTIFICATION_SOURCE) and connection not in self.dropped:
                await self._start_session(connection, 'sharing_on')

    def drop_subscriptions(self, control_point: str = 'acknowledge', delay: float | None = None) -> list[str]:
        """Forget every client's Notification Source and Data Source subscription
        silently; returns the peers affected."""
        if control_point not in DROP_MODES:
            raise ValueError(f'control_point is one of {", ".join(DROP_MODES)}')
        peers = []
        for connection in self.link.connections():
            forgot = [name for name in (NOTIFICATION_SOURCE, DATA_SOURCE) if self.link.forget_subscription(connection, name)]
            if forgot or connection in self.sessions:
                self._end_session(connection, 'dropped', announce=False)
                self.dropped[connection] = DropMode(control_point, delay)
                peers.append(self.link.peer(connection))
        return peers

    # ---------------------------------------------------------- client side
    async def on_subscription(self, connection, name: str, enabled: bool) -> None:
        peer = self.link.peer(connection)
        recovered = self.dropped.pop(connection, None) is not None
        self._emit('ancs_subscribed' if enabled else 'ancs_unsubscribed', peer=peer, characteristic=name, recovered=recovered)
        if name != NOTIFICATION_SOURCE:
            return
        if enabled:
            await self._start_session(connection, 'subscribed')
        else:
            self._end_session(connection, 'unsubscribed')

    async def on_encrypted(self, connection) -> None:
        """A bonded client's subscription persists across connections: its session
        starts as soon as the link is encrypted again."""
        if connection not in self.sessions and self.link.is_subscribed(connection, NOTIFICATION_SOURCE):
            await self._start_session(connection, 'resumed')

    def on_disconnection(self, connection) -> None:
        self._end_session(connection, 'disconnected')
        self.dropped.pop(connection, None)

    async def on_control_point(self, connection, data: bytes) -> None:
        peer = self.link.peer(connection)
        raw = {'peer': peer, 'value_hex': data.hex(), 'data_source_subscribed': self.link.is_subscribed(connection, DATA_SOURCE)}
        if not self.sharing:
            self._request(raw, self._loose_fields(data), error=ATT_WRITE_NOT_PERMITTED, reason='share system notifications is off')
            raise att.ATT_Error(ATT_WRITE_NOT_PERMITTED)
        drop = self.dropped.get(connection)
        if drop is not None and drop.control_point != 'normal':
            if drop.control_point == 'unanswered':
                self._request(raw, self._loose_fields(data), result='held', reason='subscriptions dropped')
                await self.link.until_disconnected(connection, drop.delay)
            self._request(raw, self._loose_fields(data), result='ignored', reason='subscriptions dropped')
            return
        try:
            command = parse_control_point(data)
        except AncsError as error:
            self._request(raw, self._loose_fields(data), error=error.code, reason=error.reason)
            raise att.ATT_Error(error.code) from error
        if command.command_id == COMMAND_GET_APP_ATTRIBUTES:
            await self._get_app_attributes(connection, command, raw)
            return
        session = self.sessions.get(connection)
        notification_id = session.id_of.get(command.uid) if session is not None else None
        notification = self.notifications.get(notification_id) if notification_id is not None else None
        fields = command.event_fields()
        if notification is None:
            reason = 'no session' if session is None else 'unknown NotificationUID'
            self._request(raw, fields, error=ERROR_INVALID_PARAMETER, reason=reason)
            raise att.ATT_Error(ERROR_INVALID_PARAMETER)
        fields.update(id=notification.id, app=notification.app, category=category_name(notification.category))
        if command.command_id == COMMAND_GET_NOTIFICATION_ATTRIBUTES:
            response = struct.pack('<BI', command.command_id, command.uid) + b''.join(
                encode_attribute(attribute, notification.attribute_value(attribute, limit))
                for attribute, limit in command.attributes
            )
            self._request(raw, fields, result='ok')
            # The Write Response goes first; the answer follows on the Data Source.
            self.link.spawn(self._send_response(connection, fields, response))
            return
        await self._perform_action(connection, command, notification, raw, fields)

    # ------------------------------------------------------------- internals
    def _date(self, date) -> str:
        if date is None:
            return format_date(self._now())
        if isinstance(date, datetime.datetime):
            return format_date(date)
        return check_date(str(date))

    def _new_uid(self) -> int:
        uid = self._next_uid
        self._next_uid = (self._next_uid + 1) % 0xFFFFFFFF  # 0xFFFFFFFF stays unused
        return uid

    @staticmethod
    def _loose_fields(data: bytes) -> dict:
        """What can be said of a write that was not (or could not be) decoded."""
        if not data:
            return {'command': 'empty'}
        try:
            return parse_control_point(data).event_fields()
        except AncsError:
            return {'command': COMMAND_NAMES.get(data[0], 'unknown'), 'command_id': data[0]}

    def _request(self, raw: dict, fields: dict, result: str | None = None, error: int | None = None, reason: str = '') -> None:
        self._emit(
            'ancs_request',
            **fields,
            **raw,
            result=result if error is None else f'0x{error:02X}',
            att_error=error,
            reason=reason,
        )

    async def _start_session(self, connection, reason: str) -> None:
        self._end_session(connection, 'restarted')
        if not self.sharing:
            self._emit('ancs_session', peer=self.link.peer(connection), state='refused', reason='share system notifications is off')
            return
        session = Session(connection, self.link.peer(connection), reason)
        existing = list(self.notifications.values())
        for notification in existing:
            session.bind(notification.id, self._new_uid())
        self.sessions[connection] = session
        self._emit('ancs_session', peer=session.peer, state='started', reason=reason, notifications=len(existing))
        for notification in existing:
            if self.sessions.get(connection) is not session:
                return  # ended while sending
            await self._send_source(session, EVENT_ADDED, notification, pre_existing=True)

    def _end_session(self, connection, reason: str, announce: bool = True) -> None:
        """`announce`: false when the phone ends it without the client being told
        (dropped subscriptions): the event then says `silent`."""
        session = self.sessions.pop(connection, None)
        if session is not None:
            self._emit('ancs_session', peer=session.peer, state='ended', reason=reason, silent=not announce)

    async def _send_source(self, session: Session, event_id: int, notification: Notification, pre_existing: bool = False) -> None:
        uid = session.uid_of.get(notification.id)
        if uid is None:
            return
        flags = notification.flags(pre_existing)
        count = self._count(notification.category)
        value = encode_notification_source(event_id, flags, notification.category, count, uid)
        sent = await self.link.notify(session.connection, NOTIFICATION_SOURCE, value)
        self._emit(
            'ancs_notified',
            peer=session.peer,
            event_id=event_id,
            event_name=EVENT_NAMES[event_id],
            uid=uid,
            id=notification.id,
            app=notification.app,
            category=category_name(notification.category),
            category_count=min(count, 255),
            flags=flag_names(flags),
            flags_value=flags,
            sent=sent,
            value_hex=value.hex(),
        )

    async def _send_response(self, connection, fields: dict, response: bytes) -> None:
        peer = self.link.peer(connection)
        summary = {k: fields[k] for k in ('command', 'uid', 'id', 'app') if k in fields}
        if not self.link.connected(connection):
            return
        if not self.link.is_subscribed(connection, DATA_SOURCE):
            self._emit('ancs_response_dropped', peer=peer, reason='data source not subscribed', length=len(response), **summary)
            return
        mtu = self.link.mtu(connection)
        parts = fragments(response, mtu - 3)
        for part in parts:
            if not await self.link.notify(connection, DATA_SOURCE, part):
                self._emit('ancs_response_dropped', peer=peer, reason='link or subscription gone', length=len(response), **summary)
                return
        self._emit(
            'ancs_response_sent',
            peer=peer,
            length=len(response),
            fragments=[len(part) for part in parts],
            mtu=mtu,
            value_hex=response.hex(),
            **summary,
        )

    async def _get_app_attributes(self, connection, command: ControlPointCommand, raw: dict) -> None:
        fields = command.event_fields()
        try:
            app = command.app.decode('utf-8')
        except UnicodeDecodeError:
            app = None
        if not app or app not in self.apps:
            self._request(raw, fields, error=ERROR_INVALID_PARAMETER, reason='unknown app identifier')
            raise att.ATT_Error(ERROR_INVALID_PARAMETER)
        response = bytes([command.command_id]) + command.app + b'\x00' + b''.join(
            encode_attribute(attribute, self.apps[app].encode('utf-8')) for attribute, _ in command.attributes
        )
        self._request(raw, fields, result='ok')
        self.link.spawn(self._send_response(connection, fields, response))

    async def _perform_action(self, connection, command, notification: Notification, raw: dict, fields: dict) -> None:
        action = ACTION_NAMES[command.action_id]
        label = notification.positive_action if command.action_id == ACTION_POSITIVE else notification.negative_action
        peer = self.link.peer(connection)
        if not label or notification.on_action == 'fail':
            reason = f'no {action} action' if not label else 'the app refused'
            self._request(raw, fields, error=ERROR_ACTION_FAILED, reason=reason)
            self._emit('ancs_action', peer=peer, id=notification.id, uid=command.uid, app=notification.app, action=action, label=label, result='failed')
            raise att.ATT_Error(ERROR_ACTION_FAILED)
        self._request(raw, fields, result='ok')
        result = 'removed' if notification.on_action == 'remove' else 'kept'
        self._emit('ancs_action', peer=peer, id=notification.id, uid=command.uid, app=notification.app, action=action, label=label, result=result)
        if notification.on_action == 'remove':
            # Answering a call or deleting a mail clears the notification, after the Write Response.
            self.link.spawn(self.remove(notification, reason=f'{action} action'))
