"""The phone's now-playing state as AMS exposes it (docs/PROTOCOL.md §3, Apple's AMS
specification): identifiers, value formats, and a simulated player that reacts to
remote commands. No GATT here (ams_source.py serves it).

Value formats, as iOS sends them (all UTF-8 strings):
- Player Name: the app's display name (`Spotify`), empty without a player;
- PlaybackInfo: `PlaybackState,PlaybackRate,ElapsedTime`, e.g. `1,1.0,12.345`; the
  elapsed time is the one at the last change of state, rate or position, and the
  client extrapolates (iOS does not send a value every second);
- Volume: `0.0`..`1.0` (iOS has 16 steps: `0.0625` apart);
- Queue Index, Count: decimal integers; Shuffle, Repeat: `0` off, `1` one, `2` all;
- Track Artist, Album, Title; Duration in seconds, e.g. `200.040`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from .encoding import decimal

ENTITY_PLAYER = 0
ENTITY_QUEUE = 1
ENTITY_TRACK = 2
ENTITY_NAMES = ('player', 'queue', 'track')
ATTRIBUTE_NAMES = (
    ('name', 'playback_info', 'volume'),
    ('index', 'count', 'shuffle', 'repeat'),
    ('artist', 'album', 'title', 'duration'),
)

COMMAND_NAMES = (
    'play',
    'pause',
    'toggle_play_pause',
    'next_track',
    'previous_track',
    'volume_up',
    'volume_down',
    'advance_repeat_mode',
    'advance_shuffle_mode',
    'skip_forward',
    'skip_backward',
    'like_track',
    'dislike_track',
    'bookmark_track',
)
COMMAND_PLAY, COMMAND_PAUSE, COMMAND_TOGGLE, COMMAND_NEXT, COMMAND_PREVIOUS = 0, 1, 2, 3, 4
COMMAND_VOLUME_UP, COMMAND_VOLUME_DOWN, COMMAND_REPEAT, COMMAND_SHUFFLE = 5, 6, 7, 8
COMMAND_SKIP_FORWARD, COMMAND_SKIP_BACKWARD = 9, 10
# What a music app offers while it plays (like/dislike/bookmark depend on the app).
DEFAULT_COMMANDS = tuple(range(COMMAND_SKIP_BACKWARD + 1))

STATE_NAMES = ('paused', 'playing', 'rewinding', 'fast_forwarding')
STATE_PAUSED, STATE_PLAYING, STATE_REWINDING, STATE_FAST_FORWARDING = 0, 1, 2, 3
# iOS reports rate 0.0 while paused and the scan speed while seeking.
DEFAULT_RATES = (0.0, 1.0, -2.0, 2.0)

VOLUME_STEP = 1 / 16
SKIP_SECONDS = 15.0


def state_id(value) -> int:
    if isinstance(value, bool):
        raise ValueError(f'bad playback state {value!r}')
    if isinstance(value, int) and 0 <= value < len(STATE_NAMES):
        return value
    if isinstance(value, str):
        key = value.lower().replace('-', '_').replace(' ', '_')
        if key in STATE_NAMES:
            return STATE_NAMES.index(key)
        if key == 'fastforwarding':
            return STATE_FAST_FORWARDING
    raise ValueError(f'playback state is one of {", ".join(STATE_NAMES)} (or 0..3)')


def command_id(value) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(COMMAND_NAMES):
        return value
    if isinstance(value, str) and value in COMMAND_NAMES:
        return COMMAND_NAMES.index(value)
    raise ValueError(f'remote command is one of {", ".join(COMMAND_NAMES)} (or 0..13)')


@dataclasses.dataclass
class Track:
    title: str = ''
    artist: str = ''
    album: str = ''
    duration: float = 0.0


class MediaPlayer:
    """The now-playing state of the phone; `values()` is what AMS exposes."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.name = ''
        self.state = STATE_PAUSED
        self.rate = 0.0
        self._elapsed = 0.0
        self._since = clock()
        self.volume = 0.5
        self.queue_index = 0
        self.queue_count = 0
        self.shuffle = 0
        self.repeat = 0
        self.track = Track()
        self.playlist: list[Track] = []
        self.commands_override: list[int] | None = None
        # Commands only recorded (no effect on the state): like, dislike, bookmark.
        self.marks: list[tuple[str, str]] = []

    # ------------------------------------------------------------ reading
    @property
    def active(self) -> bool:
        return bool(self.name)

    def elapsed(self) -> float:
        """Elapsed time now (extrapolated from the last change)."""
        moving = self.state != STATE_PAUSED
        value = self._elapsed + (self.rate * (self._clock() - self._since) if moving else 0.0)
        if self.track.duration > 0:
            value = min(value, self.track.duration)
        return max(value, 0.0)

    def supported_commands(self) -> list[int]:
        if not self.active:
            return []
        if self.commands_override is not None:
            return list(self.commands_override)
        return list(DEFAULT_COMMANDS)

    def values(self) -> dict[tuple[int, int], str]:
        """Every (EntityID, AttributeID) value as AMS sends it."""
        active = self.active
        playback = f'{self.state},{decimal(self.rate)},{self._elapsed:.3f}' if active else ''
        return {
            (ENTITY_PLAYER, 0): self.name,
            (ENTITY_PLAYER, 1): playback,
            (ENTITY_PLAYER, 2): decimal(self.volume),
            (ENTITY_QUEUE, 0): str(self.queue_index) if active else '',
            (ENTITY_QUEUE, 1): str(self.queue_count) if active else '',
            (ENTITY_QUEUE, 2): str(self.shuffle) if active else '',
            (ENTITY_QUEUE, 3): str(self.repeat) if active else '',
            (ENTITY_TRACK, 0): self.track.artist if active else '',
            (ENTITY_TRACK, 1): self.track.album if active else '',
            (ENTITY_TRACK, 2): self.track.title if active else '',
            (ENTITY_TRACK, 3): f'{self.track.duration:.3f}' if active else '',
        }

    def summary(self) -> dict:
        return {
            'player': self.name,
            'state': STATE_NAMES[self.state],
            'rate': self.rate,
            'elapsed_s': round(self.elapsed(), 3),
            'volume': self.volume,
            'title': self.track.title,
            'artist': self.track.artist,
            'album': self.track.album,
            'duration_s': self.track.duration,
            'queue_index': self.queue_index,
            'queue_count': self.queue_count,
            'shuffle': self.shuffle,
            'repeat': self.repeat,
            'supported_commands': [COMMAND_NAMES[c] for c in self.supported_commands()],
        }

    # ------------------------------------------------------------ changing
    def _snapshot(self, elapsed: float | None = None) -> None:
        """Fix the elapsed time before state, rate or position change."""
        value = self.elapsed() if elapsed is None else max(float(elapsed), 0.0)
        self._elapsed = min(value, self.track.duration) if self.track.duration > 0 else value
        self._since = self._clock()

    def set_playback(self, state=None, elapsed: float | None = None, rate: float | None = None) -> None:
        new_state = self.state if state is None else state_id(state)
        self._snapshot(elapsed)
        self.state = new_state
        if rate is not None:
            self.rate = float(rate)
        elif state is not None:
            self.rate = DEFAULT_RATES[new_state]

    def play_track(self, track: Track, player: str | None = None, elapsed: float = 0.0, state='playing',
                   queue_index: int | None = None, queue_count: int | None = None) -> None:
        if player is not None:
            self.name = str(player)
        elif not self.name:
            self.name = 'Music'
        self.track = track
        if queue_index is not None:
            self.queue_index = int(queue_index)
        if queue_count is not None:
            self.queue_count = int(queue_count)
        elif self.queue_count <= self.queue_index:
            self.queue_count = self.queue_index + 1
        self.set_playback(state, elapsed=elapsed)

    def set_playlist(self, tracks: list[Track], index: int = 0, player: str | None = None) -> None:
        """A queue of tracks (Next and Previous move in it), starting at `index`;
        a player that was not there yet starts playing."""
        state = STATE_NAMES[self.state] if self.active else 'playing'
        self.playlist = list(tracks)
        if self.playlist:
            index = min(max(index, 0), len(self.playlist) - 1)
            self.play_track(self.playlist[index], player=player, queue_index=index, queue_count=len(self.playlist),
                            state=state)
        elif player is not None:
            self.name = str(player)

    def stop(self) -> None:
        """The media app goes away: no player."""
        self.name = ''
        self.track = Track()
        self.playlist = []
        self.queue_index = self.queue_count = 0
        self.set_playback('paused', elapsed=0.0)

    def set_volume(self, volume: float) -> None:
        self.volume = min(max(float(volume), 0.0), 1.0)

    def _step(self, delta: int) -> None:
        if self.playlist:
            index = (self.queue_index + delta) % len(self.playlist)
            self.play_track(self.playlist[index], queue_index=index, queue_count=len(self.playlist),
                            state=STATE_NAMES[self.state])
        else:
            # Without a queue, Next and Previous start the current track again.
            self._snapshot(0.0)

    def apply(self, command: int) -> None:
        """Carry out a remote command (the caller checked it is supported)."""
        if command == COMMAND_PLAY:
            self.set_playback('playing')
        elif command == COMMAND_PAUSE:
            self.set_playback('paused')
        elif command == COMMAND_TOGGLE:
            self.set_playback('paused' if self.state == STATE_PLAYING else 'playing')
        elif command == COMMAND_NEXT:
            self._step(1)
        elif command == COMMAND_PREVIOUS:
            # iOS: Previous within the first seconds goes back a track, else restarts it.
            self._step(-1 if self.elapsed() < 3.0 else 0)
        elif command == COMMAND_VOLUME_UP:
            self.set_volume(round((self.volume + VOLUME_STEP) * 16) / 16)
        elif command == COMMAND_VOLUME_DOWN:
            self.set_volume(round((self.volume - VOLUME_STEP) * 16) / 16)
        elif command == COMMAND_REPEAT:
            self.repeat = (self.repeat + 1) % 3
        elif command == COMMAND_SHUFFLE:
            self.shuffle = (self.shuffle + 1) % 3
        elif command == COMMAND_SKIP_FORWARD:
            self._snapshot(self.elapsed() + SKIP_SECONDS)
        elif command == COMMAND_SKIP_BACKWARD:
            self._snapshot(max(self.elapsed() - SKIP_SECONDS, 0.0))
        else:
            self.marks.append((COMMAND_NAMES[command], self.track.title))


def track_from(value) -> Track:
    """A Track from a Track, a dict (`title`, `artist`, `album`, `duration`) or a title."""
    if isinstance(value, Track):
        return value
    if isinstance(value, str):
        return Track(title=value)
    if isinstance(value, dict):
        unknown = set(value) - {'title', 'artist', 'album', 'duration'}
        if unknown:
            raise ValueError(f'a track has title, artist, album, duration; not {", ".join(sorted(unknown))}')
        return Track(str(value.get('title', '')), str(value.get('artist', '')), str(value.get('album', '')),
                     float(value.get('duration', 0.0)))
    raise ValueError(f'not a track: {value!r}')
