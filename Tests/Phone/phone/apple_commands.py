"""Control-protocol commands for the phone's notifications (ANCS) and media player
(AMS), and the scenario runner. Registered on ControlProtocol at start-up; each
command names its phone with `phone` and answers with what it did (see README.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from .device.phone import Phone
from .scenarios import SCENARIOS

logger = logging.getLogger(__name__)

_ALWAYS = {'cmd', 'command', 'id', 'phone', 'name'}

NOTIFICATION_FIELDS = (
    'app', 'category', 'title', 'subtitle', 'message', 'date', 'positive_action', 'negative_action',
    'silent', 'important', 'app_name', 'on_action',
)
CHANGEABLE_FIELDS = (
    'category', 'title', 'subtitle', 'message', 'date', 'positive_action', 'negative_action',
    'silent', 'important', 'on_action',
)
TRACK_FIELDS = ('title', 'artist', 'album', 'duration', 'player', 'elapsed', 'state', 'queue_index', 'queue_count')


class CommandArgumentError(ValueError):
    pass


def _pick(arguments: dict, allowed, required=()) -> dict:
    """The command's own arguments; unknown ones are an error (a typo would
    otherwise be ignored silently)."""
    unknown = set(arguments) - _ALWAYS - set(allowed) - set(required)
    if unknown:
        raise CommandArgumentError(f'unknown arguments {", ".join(sorted(unknown))}; allowed: {", ".join(allowed)}')
    missing = [key for key in required if key not in arguments]
    if missing:
        raise CommandArgumentError(f'missing {", ".join(missing)}')
    return {key: arguments[key] for key in (*required, *allowed) if key in arguments}


def _target(arguments: dict) -> tuple[int | None, int | None]:
    """A notification is named by its stable id (`notification`; `id` is the
    command's) or by its UID in the running session (`uid`)."""
    notification, uid = arguments.get('notification'), arguments.get('uid')
    if notification is None and uid is None:
        raise CommandArgumentError('name the notification: "notification" (its id) or "uid"')
    return notification, uid


def register(protocol) -> None:
    """Add the commands to a ControlProtocol."""
    simulator = protocol.simulator
    scenario_tasks: set[asyncio.Task] = set()

    def phone_of(arguments: dict) -> Phone:
        name = arguments.get('phone', arguments.get('name'))
        if not isinstance(name, str) or not name:
            raise CommandArgumentError('missing "phone"')
        return simulator.phone(name)

    def command(name: str) -> Callable[[Callable[[Phone, dict], Awaitable[dict]]], None]:
        def decorate(handler):
            async def run(arguments: dict) -> dict:
                return await handler(phone_of(arguments), arguments)

            protocol.register(name, run)
            return handler

        return decorate

    # ------------------------------------------------------------ notifications
    @command('post_notification')
    async def post_notification(phone: Phone, arguments: dict) -> dict:
        fields = _pick(arguments, NOTIFICATION_FIELDS[1:], required=('app',))
        return {'notification': await phone.post_notification(**fields)}

    @command('modify_notification')
    async def modify_notification(phone: Phone, arguments: dict) -> dict:
        changes = _pick(arguments, (*CHANGEABLE_FIELDS, 'notification', 'uid'))
        notification, uid = _target(changes)
        changes.pop('notification', None)
        changes.pop('uid', None)
        return {'notification': await phone.modify_notification(notification, uid=uid, **changes)}

    @command('remove_notification')
    async def remove_notification(phone: Phone, arguments: dict) -> dict:
        notification, uid = _target(_pick(arguments, ('notification', 'uid')))
        return {'notification': await phone.remove_notification(notification, uid=uid)}

    @command('list_notifications')
    async def list_notifications(phone: Phone, arguments: dict) -> dict:
        _pick(arguments, ())
        return {'notifications': phone.list_notifications(), 'sharing': phone.notifications.sharing}

    @command('set_sharing')
    async def set_sharing(phone: Phone, arguments: dict) -> dict:
        on = _pick(arguments, (), required=('on',))['on']
        if not isinstance(on, bool):
            raise CommandArgumentError('"on" is true or false')
        await phone.set_sharing(on)
        return phone.state()

    @command('drop_subscriptions')
    async def drop_subscriptions(phone: Phone, arguments: dict) -> dict:
        fields = _pick(arguments, ('control_point', 'delay', 'services'))
        peers = phone.drop_subscriptions(**fields)
        return {'peers': peers}

    # -------------------------------------------------------------------- media
    @command('play_track')
    async def play_track(phone: Phone, arguments: dict) -> dict:
        return {'now_playing': await phone.play_track(**_pick(arguments, TRACK_FIELDS[1:], required=('title',)))}

    @command('set_playback')
    async def set_playback(phone: Phone, arguments: dict) -> dict:
        return {'now_playing': await phone.set_playback(**_pick(arguments, ('state', 'elapsed', 'rate')))}

    @command('set_volume')
    async def set_volume(phone: Phone, arguments: dict) -> dict:
        return {'now_playing': await phone.set_volume(_pick(arguments, (), required=('volume',))['volume'])}

    @command('set_queue')
    async def set_queue(phone: Phone, arguments: dict) -> dict:
        return {'now_playing': await phone.set_queue(**_pick(arguments, ('index', 'count', 'shuffle', 'repeat')))}

    @command('set_playlist')
    async def set_playlist(phone: Phone, arguments: dict) -> dict:
        fields = _pick(arguments, ('index', 'player'), required=('tracks',))
        if not isinstance(fields['tracks'], list):
            raise CommandArgumentError('"tracks" is a list of {title, artist, album, duration}')
        return {'now_playing': await phone.set_playlist(**fields)}

    @command('set_supported_commands')
    async def set_supported_commands(phone: Phone, arguments: dict) -> dict:
        commands = _pick(arguments, (), required=('commands',))['commands']
        if commands is not None and not isinstance(commands, list):
            raise CommandArgumentError('"commands" is a list of names or numbers, or null for the default')
        return {'now_playing': await phone.set_supported_commands(commands)}

    @command('stop_player')
    async def stop_player(phone: Phone, arguments: dict) -> dict:
        _pick(arguments, ())
        return {'now_playing': await phone.stop_player()}

    @command('now_playing')
    async def now_playing(phone: Phone, arguments: dict) -> dict:
        _pick(arguments, ())
        return {'now_playing': phone.media.player.summary()}

    # ---------------------------------------------------------------- scenarios
    @command('run_scenario')
    async def run_scenario(phone: Phone, arguments: dict) -> dict:
        fields = _pick(arguments, ('wait', 'interval', 'arrive', 'player', 'notify_app', 'app'), required=('scenario',))
        scenario = SCENARIOS.get(fields.pop('scenario'))
        if scenario is None:
            raise CommandArgumentError(f'scenario is one of {", ".join(SCENARIOS)}')
        wait = bool(fields.pop('wait', False))
        run = scenario(phone, **fields)
        if wait:
            return {'result': await run}
        task = asyncio.get_running_loop().create_task(run)
        scenario_tasks.add(task)

        def done(finished: asyncio.Task) -> None:
            scenario_tasks.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                logger.error('scenario failed: %r', finished.exception())
                phone.report('error', what='scenario', detail=repr(finished.exception()))

        task.add_done_callback(done)
        return {'started': True}
