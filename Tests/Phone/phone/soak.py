"""A long drive, fast: the `soak` control command.

Google Maps turn-by-turn (one notification posted, modified at each turn,
removed on arrival), notifications of other apps the head unit must drop
(many different apps, so the head unit's per-app caches fill past their
bounds), and track changes on the player, interleaved. Each notification
step waits until the head unit has asked for what it needs (its attributes,
or just its app), so the phone never runs ahead of the head unit and every
notification is really handled; a step the head unit does not ask about
within `step_timeout` is counted as `unanswered` and the drive goes on.

    {"cmd": "soak", "phone": "anna", "notifications": 10000, "tracks": 1000}

Reply (when done): `notifications` (posted), `maps` and `others` (of them),
`modifications`, `removals`, `tracks`, `unanswered`, `seconds`. Progress:
a `soak` event every `report_every` notifications.
"""

from __future__ import annotations

import asyncio
import time

from .scenarios import PLAYLIST

MAPS_TURNS = (
    ('In 800 m', 'Turn left onto Market Street'),
    ('In 300 m', 'Turn left onto Market Street'),
    ('In 100 m', 'Turn left onto Market Street'),
)

OTHER_APPS = 300
OTHER_CATEGORIES = ('social', 'email', 'news', 'other', 'schedule', 'health_and_fitness')


def register(protocol) -> None:
    simulator = protocol.simulator

    async def soak(arguments: dict) -> dict:
        name = arguments.get('phone', arguments.get('name'))
        if not isinstance(name, str) or not name:
            raise ValueError('missing "phone"')
        phone = simulator.phone(name)
        total = int(arguments.get('notifications', 1000))
        tracks = int(arguments.get('tracks', max(1, total // 10)))
        step_timeout = float(arguments.get('step_timeout', 5.0))
        report_every = int(arguments.get('report_every', 1000))
        started = time.monotonic()
        counts = {'notifications': 0, 'maps': 0, 'others': 0, 'modifications': 0, 'removals': 0, 'tracks': 0,
                  'unanswered': 0}

        async def asked(mark: int, uid) -> None:
            """Waits for the head unit's Control Point request about `uid`."""
            if uid is None:
                counts['unanswered'] += 1
                return
            try:
                await simulator.wait_for('ancs_request', timeout=step_timeout, after=mark, phone=name, uid=uid)
            except TimeoutError:
                counts['unanswered'] += 1

        def posted(kind: str) -> None:
            counts['notifications'] += 1
            counts[kind] += 1
            if counts['notifications'] % report_every == 0:
                phone.report('soak', **counts, seconds=round(time.monotonic() - started, 1))

        track_every = max(1, total // max(1, tracks))
        number = 0
        while counts['notifications'] < total:
            number += 1
            if number % 2:
                # A stretch of the drive: one Maps instruction through its turns.
                title, message = MAPS_TURNS[0]
                mark = simulator.event_mark()
                maps = await phone.post_notification('com.google.Maps', 'location', title=title,
                                                     message=f'{message} ({number})')
                await asked(mark, maps['uid'])
                posted('maps')
                for title, message in MAPS_TURNS[1:]:
                    mark = simulator.event_mark()
                    changed = await phone.modify_notification(maps['id'], title=title, message=f'{message} ({number})')
                    await asked(mark, changed['uid'])
                    counts['modifications'] += 1
                await phone.remove_notification(maps['id'])
                counts['removals'] += 1
            else:
                # Somebody else's notification: dropped by the head unit, text never asked for.
                app = f'com.example.app{number % OTHER_APPS}'
                mark = simulator.event_mark()
                other = await phone.post_notification(app, OTHER_CATEGORIES[number % len(OTHER_CATEGORIES)],
                                                      title=f'Private {number}', message=f'Private message {number}',
                                                      app_name=f'App {number % OTHER_APPS}')
                await asked(mark, other['uid'])
                posted('others')
                await phone.remove_notification(other['id'])
                counts['removals'] += 1
            if counts['notifications'] % track_every == 0 and counts['tracks'] < tracks:
                track = PLAYLIST[counts['tracks'] % len(PLAYLIST)]
                await phone.play_track(f'{track.title} #{counts["tracks"]}', track.artist, track.album, track.duration)
                counts['tracks'] += 1
                await asyncio.sleep(0)
        return {**counts, 'seconds': round(time.monotonic() - started, 1)}

    protocol.register('soak', soak)
