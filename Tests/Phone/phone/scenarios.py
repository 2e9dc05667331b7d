"""Ready-made phone activity for demos and integration tests.

    from phone.scenarios import maps_navigation, music_changes, chat_and_mail
    await maps_navigation(anna, interval=2.0)

Each helper drives one Phone through its public API, reports every step as a
`scenario` event (`scenario`, `step`, plus what changed) and returns what it did
(ids of the notifications it posted), so a test can check the head unit's
reaction step by step. `interval` is the pause between steps in seconds (0 for
tests that only care about the order).
"""

from __future__ import annotations

import asyncio

from .device.media_player import Track

# A drive through San Francisco: one Google Maps notification, updated as the car
# approaches each turn, then removed on arrival.
MAPS_ROUTE = (
    ('In 800 m', 'Turn left onto Market Street'),
    ('In 500 m', 'Turn left onto Market Street'),
    ('In 200 m', 'Turn left onto Market Street'),
    ('In 50 m', 'Turn left onto Market Street'),
    ('In 1.2 km', 'Turn right onto 3rd Street'),
    ('In 300 m', 'Turn right onto 3rd Street'),
    ('In 100 m', 'Your destination is on the right'),
)

PLAYLIST = (
    Track('Blinding Lights', 'The Weeknd', 'After Hours', 200.04),
    Track('Levitating', 'Dua Lipa', 'Future Nostalgia', 203.06),
    Track('Bohemian Rhapsody', 'Queen', 'A Night at the Opera', 354.32),
)

# Notifications a car must not show: their text is private.
CHAT = {
    'app': 'com.facebook.Messenger',
    'category': 'social',
    'title': 'Alex',
    'message': 'Are we still on for tonight? The door code is 4711.',
    'positive_action': 'Reply',
    'negative_action': 'Clear',
}
MAIL = {
    'app': 'com.apple.mobilemail',
    'category': 'email',
    'title': 'Bank of Example',
    'subtitle': 'Your monthly statement',
    'message': 'Your balance is 1,234.56. Log in to see the details.',
    'negative_action': 'Trash',
}


def _report(phone, scenario: str, step, **fields) -> None:
    phone.report('scenario', scenario=scenario, step=step, **fields)


async def maps_navigation(phone, route=MAPS_ROUTE, interval: float = 2.0, app: str = 'com.google.Maps',
                          arrive: bool = True) -> dict:
    """Turn-by-turn guidance as Google Maps gives it: ONE notification (category
    Location) whose Title is the distance and Message the manoeuvre, modified at
    every step, removed on arrival."""
    steps = list(route)
    if not steps:
        raise ValueError('a route has at least one step')
    title, message = steps[0]
    posted = await phone.post_notification(app, 'location', title=title, message=message)
    _report(phone, 'maps', 0, id=posted['id'], uid=posted['uid'], title=title, message=message)
    for number, (title, message) in enumerate(steps[1:], start=1):
        await asyncio.sleep(interval)
        changed = await phone.modify_notification(posted['id'], title=title, message=message)
        _report(phone, 'maps', number, id=posted['id'], uid=changed['uid'], title=title, message=message)
    if arrive:
        await asyncio.sleep(interval)
        await phone.remove_notification(posted['id'])
        _report(phone, 'maps', 'arrived', id=posted['id'])
    _report(phone, 'maps', 'done', id=posted['id'])
    return {'id': posted['id'], 'steps': len(steps), 'arrived': arrive}


async def music_changes(phone, tracks=PLAYLIST, interval: float = 3.0, player: str = 'Spotify',
                        notify_app: str | None = None) -> dict:
    """Track changes on the AMS player (`player` as the now-playing app). With
    `notify_app` (e.g. `com.spotify.client`) each change also posts or updates one
    notification of category Entertainment, as music apps that announce tracks do."""
    notification = None
    tracks = [track if isinstance(track, Track) else Track(**track) for track in tracks]
    for index, track in enumerate(tracks):
        if index:
            await asyncio.sleep(interval)
        await phone.play_track(track.title, track.artist, track.album, track.duration, player=player,
                               queue_index=index, queue_count=len(tracks))
        if notify_app:
            if notification is None:
                notification = await phone.post_notification(notify_app, 'entertainment', title=track.title,
                                                              message=f'{track.artist} — {track.album}', silent=True)
            else:
                await phone.modify_notification(notification['id'], title=track.title,
                                                message=f'{track.artist} — {track.album}')
        _report(phone, 'music', index, title=track.title, artist=track.artist,
                id=notification['id'] if notification else None)
    _report(phone, 'music', 'done')
    return {'tracks': len(tracks), 'id': notification['id'] if notification else None}


async def chat_and_mail(phone, interval: float = 0.0) -> dict:
    """A chat message and a mail: notifications the head unit must drop without
    ever asking for their Title, Subtitle or Message."""
    chat = await phone.post_notification(**CHAT)
    _report(phone, 'chat_and_mail', 'chat', id=chat['id'], uid=chat['uid'], app=CHAT['app'])
    await asyncio.sleep(interval)
    mail = await phone.post_notification(**MAIL)
    _report(phone, 'chat_and_mail', 'mail', id=mail['id'], uid=mail['uid'], app=MAIL['app'])
    _report(phone, 'chat_and_mail', 'done')
    return {'chat': chat['id'], 'mail': mail['id']}


SCENARIOS = {
    'maps': maps_navigation,
    'music': music_changes,
    'chat_and_mail': chat_and_mail,
    'burst': lambda phone, **kw: notification_burst(phone, **kw),
}


async def demo(phone, interval: float = 2.0, cycles: int | None = None) -> None:
    """The demo: wait until a head unit runs an ANCS session with the phone, then
    play the scenarios again and again (`cycles` times; None: for ever): private
    chat and mail, music changes, a Maps drive. A phone that loses its head unit
    waits for it again before the next step."""
    done = 0
    steps = (
        lambda: chat_and_mail(phone, interval=interval),
        lambda: music_changes(phone, interval=interval, notify_app='com.spotify.client'),
        lambda: maps_navigation(phone, interval=interval),
    )
    while cycles is None or done < cycles:
        for step in steps:
            while not phone.notifications.sessions:
                await asyncio.sleep(0.5)
            await step()
            await asyncio.sleep(interval)
        # Clear what piled up so the next round starts from an empty notification centre.
        for notification in list(phone.notifications.notifications.values()):
            await phone.notifications.remove(notification, reason='demo round over')
        done += 1


async def notification_burst(phone, count: int = 1000, interval: float = 0.0, app: str = 'com.google.Maps',
                             settle=None) -> dict:
    """The benchmark's load: `count` navigation notifications (category Location,
    distance as Title, manoeuvre as Message), each new one replacing the previous
    (posted, then the previous removed), as turn-by-turn guidance does.
    `settle(posted)` (async), when given, is awaited after each post: the benchmark
    waits there until the client under test has fetched the notification, so every
    client gets the same notifications at its own pace."""
    previous = None
    for number in range(count):
        if number and interval:
            await asyncio.sleep(interval)
        posted = await phone.post_notification(app, 'location', title=f'In {100 + number % 50 * 10} m',
                                               message='Turn left onto Market Street toward Union Square')
        if settle is not None:
            await settle(posted)
        if previous is not None:
            await phone.remove_notification(previous['id'])
        previous = posted
    if previous is not None:
        await phone.remove_notification(previous['id'])
    _report(phone, 'burst', 'done', count=count)
    return {'count': count}
