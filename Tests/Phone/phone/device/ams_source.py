"""AMS Media Source: the iPhone's side of Apple's Media Service (docs/PROTOCOL.md §3),
serving the simulated player of media_player.py.

- Remote Command: a write of one RemoteCommandID acts on the player; the list of
  commands the player accepts now is notified when the client subscribes (and when
  a bonded client's subscription persisted, at encryption) and whenever it changes.
- Entity Update: a write of an EntityID and AttributeIDs registers the client for
  them (a new write for the same entity replaces the earlier list); the phone then
  notifies each registered attribute's current value, and again on every change:
  EntityID, AttributeID, EntityUpdateFlags, value. A value longer than
  ATT_MTU - 3 - 3 bytes is cut (at a character boundary) and flagged Truncated.
- Entity Attribute: a write of EntityID + AttributeID selects an attribute; reads
  (and Read Blob, for long values) return its whole value as it was when selected.
- Errors (ATT application errors in the Write or Read Response): 0xA0 Invalid
  State for Entity Update / Entity Attribute access by a client not subscribed to
  Entity Update notifications (as the specification says), a read of Entity
  Attribute with nothing selected, and a remote command the player does not offer
  now; 0xA1 Invalid Command for a write of the wrong length or an undefined
  RemoteCommandID; 0xA2 Absent Attribute for an EntityID or AttributeID that does
  not exist.
- Unsubscribing from Entity Update drops the client's registrations; they are per
  connection and do not outlive it.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable

from bumble import att

from .apple_services import ENTITY_UPDATE, REMOTE_COMMAND, GattLink
from .encoding import text_or_hex, truncate_utf8
from .media_player import ATTRIBUTE_NAMES, COMMAND_NAMES, ENTITY_NAMES, MediaPlayer, Track, command_id

ERROR_INVALID_STATE = 0xA0
ERROR_INVALID_COMMAND = 0xA1
ERROR_ABSENT_ATTRIBUTE = 0xA2

FLAG_TRUNCATED = 0x01


def attribute_name(entity: int, attribute: int) -> str:
    return f'{ENTITY_NAMES[entity]}.{ATTRIBUTE_NAMES[entity][attribute]}'


def _known(entity: int, attribute: int | None = None) -> bool:
    if not 0 <= entity < len(ENTITY_NAMES):
        return False
    return attribute is None or 0 <= attribute < len(ATTRIBUTE_NAMES[entity])


def encode_entity_update(entity: int, attribute: int, value: str, max_value_bytes: int) -> tuple[bytes, bool]:
    raw = value.encode('utf-8')
    cut = truncate_utf8(value, max_value_bytes)
    truncated = len(cut) < len(raw)
    return struct.pack('<BBB', entity, attribute, FLAG_TRUNCATED if truncated else 0) + cut, truncated


class MediaSource:
    def __init__(self, link: GattLink, clock: Callable[[], float] = time.monotonic) -> None:
        self.link = link
        self.player = MediaPlayer(clock)
        # connection -> EntityID -> registered AttributeIDs
        self.registrations: dict[object, dict[int, list[int]]] = {}
        # connection -> (EntityID, AttributeID, value at selection, reads since)
        self.selected: dict[object, list] = {}
        self._values = self.player.values()
        self._commands = self.player.supported_commands()

    def _emit(self, event: str, **fields) -> None:
        self.link.emit(event, **fields)

    # ------------------------------------------------------------- phone side
    async def changed(self, reason: str) -> None:
        """Tell every registered client what changed in the player."""
        values = self.player.values()
        changes = sorted(key for key, value in values.items() if self._values.get(key) != value)
        self._values = values
        commands = self.player.supported_commands()
        commands_changed = commands != self._commands
        self._commands = commands
        if changes or commands_changed:
            self._emit('ams_player', reason=reason, changed=[attribute_name(*key) for key in changes], **self.player.summary())
        for connection, registrations in list(self.registrations.items()):
            for entity, attribute in changes:
                if attribute in registrations.get(entity, ()):
                    await self._send_update(connection, entity, attribute, values[(entity, attribute)])
        if commands_changed:
            for connection in self.link.connections():
                await self._send_commands(connection)

    async def play_track(self, title: str, artist: str = '', album: str = '', duration: float = 0.0,
                         player: str | None = None, elapsed: float = 0.0, state='playing',
                         queue_index: int | None = None, queue_count: int | None = None) -> dict:
        self.player.play_track(Track(str(title), str(artist), str(album), float(duration)), player=player,
                               elapsed=elapsed, state=state, queue_index=queue_index, queue_count=queue_count)
        await self.changed('play_track')
        return self.player.summary()

    async def set_playlist(self, tracks: list[Track], index: int = 0, player: str | None = None) -> dict:
        self.player.set_playlist(tracks, index, player)
        await self.changed('set_playlist')
        return self.player.summary()

    async def set_playback(self, state=None, elapsed: float | None = None, rate: float | None = None) -> dict:
        self.player.set_playback(state, elapsed, rate)
        await self.changed('set_playback')
        return self.player.summary()

    async def set_volume(self, volume: float) -> dict:
        self.player.set_volume(volume)
        await self.changed('set_volume')
        return self.player.summary()

    async def set_queue(self, index: int | None = None, count: int | None = None,
                        shuffle: int | None = None, repeat: int | None = None) -> dict:
        for name, value in (('queue_index', index), ('queue_count', count), ('shuffle', shuffle), ('repeat', repeat)):
            if value is not None:
                if name in ('shuffle', 'repeat') and int(value) not in (0, 1, 2):
                    raise ValueError(f'{name} is 0 (off), 1 (one) or 2 (all)')
                setattr(self.player, name, int(value))
        await self.changed('set_queue')
        return self.player.summary()

    async def set_supported_commands(self, commands: list | None) -> dict:
        self.player.commands_override = None if commands is None else sorted({command_id(c) for c in commands})
        await self.changed('set_supported_commands')
        return self.player.summary()

    async def stop(self) -> dict:
        self.player.stop()
        await self.changed('stop')
        return self.player.summary()

    def drop_subscriptions(self) -> list[str]:
        peers = []
        for connection in self.link.connections():
            forgot = [name for name in (REMOTE_COMMAND, ENTITY_UPDATE) if self.link.forget_subscription(connection, name)]
            had = self.registrations.pop(connection, None)
            self.selected.pop(connection, None)
            if forgot or had:
                peers.append(self.link.peer(connection))
        return peers

    # ---------------------------------------------------------- client side
    async def on_subscription(self, connection, name: str, enabled: bool) -> None:
        self._emit('ams_subscribed' if enabled else 'ams_unsubscribed', peer=self.link.peer(connection), characteristic=name)
        if name == REMOTE_COMMAND and enabled:
            await self._send_commands(connection)
        elif name == ENTITY_UPDATE and not enabled:
            self.registrations.pop(connection, None)

    async def on_encrypted(self, connection) -> None:
        if self.link.is_subscribed(connection, REMOTE_COMMAND):
            await self._send_commands(connection)

    def on_disconnection(self, connection) -> None:
        self.registrations.pop(connection, None)
        self.selected.pop(connection, None)

    async def on_remote_command(self, connection, data: bytes) -> None:
        peer = self.link.peer(connection)
        fields = {'peer': peer, 'value_hex': data.hex()}
        if len(data) != 1 or data[0] >= len(COMMAND_NAMES):
            self._command_event(fields, None, ERROR_INVALID_COMMAND, 'not one defined RemoteCommandID')
            raise att.ATT_Error(ERROR_INVALID_COMMAND)
        command = data[0]
        if command not in self.player.supported_commands():
            self._command_event(fields, command, ERROR_INVALID_STATE, 'not supported now')
            raise att.ATT_Error(ERROR_INVALID_STATE)
        self.player.apply(command)
        self._command_event(fields, command, None, '')
        # The Write Response first, then the Entity Updates the command causes.
        self.link.spawn(self.changed(f'remote command {COMMAND_NAMES[command]}'))

    async def on_entity_update(self, connection, data: bytes) -> None:
        fields = {'peer': self.link.peer(connection), 'value_hex': data.hex()}
        if len(data) >= 1 and _known(data[0]):
            fields['entity'] = ENTITY_NAMES[data[0]]
            fields['attributes'] = [
                ATTRIBUTE_NAMES[data[0]][a] if _known(data[0], a) else str(a) for a in data[1:]
            ]
        error, reason = None, ''
        if not self.link.is_subscribed(connection, ENTITY_UPDATE):
            error, reason = ERROR_INVALID_STATE, 'not subscribed to Entity Update'
        elif len(data) < 2:
            error, reason = ERROR_INVALID_COMMAND, 'an EntityID and at least one AttributeID'
        elif not _known(data[0]) or not all(_known(data[0], a) for a in data[1:]):
            error, reason = ERROR_ABSENT_ATTRIBUTE, 'unknown EntityID or AttributeID'
        if error is not None:
            self._emit('ams_registered', **fields, result=f'0x{error:02X}', att_error=error, reason=reason)
            raise att.ATT_Error(error)
        entity = data[0]
        attributes = list(dict.fromkeys(data[1:]))
        self.registrations.setdefault(connection, {})[entity] = attributes
        self._emit('ams_registered', **fields, result='ok', att_error=None, reason='')
        self.link.spawn(self._send_current(connection, entity, attributes))

    async def on_entity_attribute_write(self, connection, data: bytes) -> None:
        fields = {'peer': self.link.peer(connection), 'value_hex': data.hex()}
        error, reason = None, ''
        if not self.link.is_subscribed(connection, ENTITY_UPDATE):
            error, reason = ERROR_INVALID_STATE, 'not subscribed to Entity Update'
        elif len(data) != 2:
            error, reason = ERROR_INVALID_COMMAND, 'EntityID and AttributeID: 2 bytes'
        elif not _known(data[0], data[1]):
            error, reason = ERROR_ABSENT_ATTRIBUTE, 'unknown EntityID or AttributeID'
        if error is not None:
            self._emit('ams_attribute_selected', **fields, result=f'0x{error:02X}', att_error=error, reason=reason)
            raise att.ATT_Error(error)
        value = self.player.values()[(data[0], data[1])].encode('utf-8')
        self.selected[connection] = [data[0], data[1], value, 0]
        self._emit('ams_attribute_selected', **fields, attribute=attribute_name(data[0], data[1]), length=len(value),
                   result='ok', att_error=None, reason='')

    async def on_entity_attribute_read(self, connection) -> bytes:
        selection = self.selected.get(connection)
        peer = self.link.peer(connection)
        if selection is None:
            self._emit('ams_read', peer=peer, result='0xA0', att_error=ERROR_INVALID_STATE, reason='nothing selected')
            raise att.ATT_Error(ERROR_INVALID_STATE)
        entity, attribute, value, reads = selection
        selection[3] = reads + 1
        # One event per ATT Read / Read Blob; `read` counts them since the selection.
        self._emit('ams_read', peer=peer, attribute=attribute_name(entity, attribute), read=reads + 1,
                   length=len(value), result='ok', att_error=None, **text_or_hex(value))
        return value

    # ------------------------------------------------------------- internals
    def _command_event(self, fields: dict, command: int | None, error: int | None, reason: str) -> None:
        self._emit(
            'ams_command',
            **fields,
            command=COMMAND_NAMES[command] if command is not None else None,
            command_id=command,
            result='ok' if error is None else f'0x{error:02X}',
            att_error=error,
            reason=reason,
            supported=[COMMAND_NAMES[c] for c in self.player.supported_commands()],
        )

    async def _send_commands(self, connection) -> None:
        commands = self.player.supported_commands()
        if await self.link.notify(connection, REMOTE_COMMAND, bytes(commands)):
            self._emit('ams_commands_notified', peer=self.link.peer(connection),
                       commands=[COMMAND_NAMES[c] for c in commands], value_hex=bytes(commands).hex())

    async def _send_current(self, connection, entity: int, attributes: list[int]) -> None:
        values = self.player.values()
        for attribute in attributes:
            if entity not in self.registrations.get(connection, {}):
                return  # unsubscribed meanwhile
            await self._send_update(connection, entity, attribute, values[(entity, attribute)])

    async def _send_update(self, connection, entity: int, attribute: int, value: str) -> None:
        mtu = self.link.mtu(connection)
        data, truncated = encode_entity_update(entity, attribute, value, mtu - 3 - 3)
        if await self.link.notify(connection, ENTITY_UPDATE, data):
            self._emit(
                'ams_update_sent',
                peer=self.link.peer(connection),
                entity=ENTITY_NAMES[entity],
                attribute=attribute_name(entity, attribute),
                value=value,
                sent_length=len(data) - 3,
                length=len(value.encode('utf-8')),
                truncated=truncated,
                mtu=mtu,
            )
