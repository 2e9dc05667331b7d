"""Control-protocol commands of the NotifBridge sender (the phone as central;
README.md "NotifBridge" lists them with their replies). One sender per
phone, made by `notifbridge_connect` and kept across links: its keys,
receipts and reverse commands are the phone's, not the link's."""

from __future__ import annotations

import asyncio

from bumble import hci

from . import faults, messages
from .picker import find_accessory, watch
from .sender import KEY_WRITE_STYLES, DeliveryFailed, NotifBridgeSender, connect_central

_SENDER_OPTIONS = {'key_write': str, 'chunk_timeout': float, 'frame_resends': int, 'receipt_timeout': float,
                   'receipt_retries': int, 'ready_timeout': float, 'ciphersuite': str, 'version': str}


def register(protocol) -> None:
    from ..control import ControlError, _phone_name

    simulator = protocol.simulator
    senders: dict[str, NotifBridgeSender] = {}

    def phone_of(arguments: dict):
        return simulator.phone(_phone_name(arguments))

    def sender_of(arguments: dict) -> NotifBridgeSender:
        name = _phone_name(arguments)
        simulator.phone(name)
        sender = senders.get(name)
        if sender is None:
            raise ControlError('no NotifBridge sender: notifbridge_connect first')
        return sender

    def text(arguments: dict, key: str, default: str | None = None, required: bool = False) -> str | None:
        value = arguments.get(key, default)
        if value is None and required:
            raise ControlError(f'missing "{key}"')
        if value is not None and not isinstance(value, str):
            raise ControlError(f'"{key}" is a string')
        return value

    def number(arguments: dict, key: str, default: float | None) -> float | None:
        value = arguments.get(key, default)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
            raise ControlError(f'"{key}" is a non-negative number')
        return value

    def action_of(item) -> dict:
        """`{"id", "title", "type": background|textInput|dismiss|unknown, "placeholder"?, "code"?}`
        as the app's Action, its type an enum object."""
        if not isinstance(item, dict) or not isinstance(item.get('id'), str) or not isinstance(item.get('title'), str):
            raise ControlError('an action is {"id", "title", "type"}')
        kind = item.get('type', 'background')
        if kind == 'background':
            action_type = messages.background()
        elif kind == 'textInput':
            action_type = messages.text_input(text(item, 'placeholder', ''))
        elif kind == 'dismiss':
            action_type = messages.dismiss()
        elif kind == 'unknown' and isinstance(item.get('code'), int) and 0 <= item['code'] <= 255:
            action_type = messages.unknown_action(item['code'])
        else:
            raise ControlError('an action type is background, textInput, dismiss or unknown (with "code" 0..255)')
        return messages.action(item['id'], item['title'], action_type)

    async def run(coroutine) -> dict:
        try:
            return await coroutine
        except DeliveryFailed as error:
            raise ControlError(f'NotifBridge: {error}') from error

    def existing_link(phone, address: str):
        """A link the phone already holds to `address` as the central (Settings pairing's)."""
        for connection in phone.device.connections.values():
            if (connection.role == hci.Role.CENTRAL
                    and connection.peer_address.to_string(with_type_qualifier=False) == address.split('/')[0]):
                return connection
        return None

    async def picker(arguments: dict) -> dict:
        """The picker open for `seconds`: each accessory it lists with every
        name heard from it meanwhile (one when the name held still)."""
        phone = phone_of(arguments)
        seen = await watch(phone.device, number(arguments, 'seconds', 3.0))
        return {'accessories': [{'address': address, 'names': names} for address, names in seen.items()]}

    async def connect(arguments: dict) -> dict:
        phone = phone_of(arguments)
        address, listed = text(arguments, 'address'), None
        if address is None:
            try:
                address, listed = await find_accessory(phone.device, number(arguments, 'scan_timeout', 5.0),
                                                       text(arguments, 'name'))
            except LookupError as error:
                raise ControlError(str(error)) from error
        elif arguments.get('address_type', 'random') == 'public' and '/' not in address:
            address += '/P'
        mtu = arguments.get('mtu', 185)
        if mtu is not None and (isinstance(mtu, bool) or not isinstance(mtu, int) or not 23 <= mtu <= 517):
            raise ControlError('"mtu" is 23..517 or null')
        timeout = number(arguments, 'timeout', 5.0)
        options = {}
        for key, kind in _SENDER_OPTIONS.items():
            if key in arguments:
                value = arguments[key]
                if kind is str and not isinstance(value, str) or kind is not str and (
                        isinstance(value, bool) or not isinstance(value, (int, float))):
                    raise ControlError(f'bad "{key}"')
                options[key] = kind(value)
        if 'relay_receipts' in arguments:
            if not isinstance(arguments['relay_receipts'], bool):
                raise ControlError('bad "relay_receipts"')
            options['relay_receipts'] = arguments['relay_receipts']
        if options.get('key_write', KEY_WRITE_STYLES[0]) not in KEY_WRITE_STYLES:
            raise ControlError(f'"key_write" is one of {", ".join(KEY_WRITE_STYLES)}')

        async def link():
            connection = existing_link(phone, address)
            if connection is None:
                connection = await connect_central(phone.device, address, mtu=mtu, timeout=timeout)
            if arguments.get('pair', False) and not connection.encryption:
                await connection.pair()
            return connection

        sender = senders.get(phone.name)
        if sender is None:
            sender = NotifBridgeSender(lambda event, **fields: phone.report(event, **fields), **options)
            senders[phone.name] = sender
        else:
            # The same sender on a new link: its keys, receipts and commands are the phone's.
            await sender.disconnect()
            for key, value in options.items():
                setattr(sender, key, value)
        sender.connector = link
        try:
            connection = await link()
        except Exception as error:  # noqa: BLE001 - Bumble's connection and pairing errors
            raise ControlError(f'connection to {address} failed: {error!r}') from error
        await run(sender.attach(connection))
        return {'phone': phone.name, 'address': address, 'name': listed, 'notifbridge': sender.state()}

    async def disconnect(arguments: dict) -> dict:
        sender = sender_of(arguments)
        await sender.disconnect()
        return {'notifbridge': sender.state()}

    async def keys(arguments: dict) -> dict:
        sender = sender_of(arguments)
        generation = await run(sender.exchange_keys(text(arguments, 'identifier'),
                                                    legacy=bool(arguments.get('legacy', False))))
        return {'generation': generation.describe(), 'notifbridge': sender.state()}

    async def prepare(arguments: dict) -> dict:
        sender = sender_of(arguments)
        generation = sender.new_generation(text(arguments, 'identifier'))
        if not await run(sender.prepare(generation)):
            raise ControlError('NotifBridge: no receipt for prepare')
        return {'generation': generation.describe(), 'notifbridge': sender.state()}

    async def activate(arguments: dict) -> dict:
        sender = sender_of(arguments)
        exchange_id = text(arguments, 'exchange_id')
        if exchange_id is None and sender.prepared:
            exchange_id = list(sender.prepared)[-1]
        generation = sender.prepared.get((exchange_id or '').upper())
        if generation is None:
            raise ControlError('no prepared key: notifbridge_prepare first')
        if not await run(sender.activate(generation)):
            raise ControlError('NotifBridge: no receipt for activate')
        return {'generation': generation.describe(), 'notifbridge': sender.state()}

    async def rotate(arguments: dict) -> dict:
        sender = sender_of(arguments)
        previous = sender.newest().describe() if sender.generations else None
        generation = await run(sender.exchange_keys(text(arguments, 'identifier')))
        return {'generation': generation.describe(), 'previous': previous, 'notifbridge': sender.state()}

    async def post(arguments: dict) -> dict:
        sender = sender_of(arguments)
        fields = {}
        for key, name in (('subtitle', 'subtitle'), ('source_name', 'source_name'), ('thread', 'thread'),
                          ('alert_kind', 'alert_kind')):
            if key in arguments:
                fields[name] = text(arguments, key)
        for key in ('has_sound', 'should_alert'):
            if key in arguments:
                fields[key] = bool(arguments[key])
        if 'attributes' in arguments:
            fields['attributes'] = int(arguments['attributes'])
        if 'actions' in arguments:
            fields['actions'] = [action_of(item) for item in arguments['actions']]
        try:
            generation = sender.generation(text(arguments, 'exchange_id')) if 'exchange_id' in arguments else None
        except DeliveryFailed as error:
            raise ControlError(str(error)) from error
        return await run(sender.post(text(arguments, 'app', required=True), text(arguments, 'title'),
                                     text(arguments, 'body'), notification_id=text(arguments, 'notification_id'),
                                     kind=text(arguments, 'kind'), generation=generation, **fields))

    async def remove(arguments: dict) -> dict:
        sender = sender_of(arguments)
        try:
            return await run(sender.remove(text(arguments, 'app', required=True),
                                           text(arguments, 'notification_id')))
        except ValueError as error:
            raise ControlError(str(error)) from error

    async def remove_all(arguments: dict) -> dict:
        return await run(sender_of(arguments).remove_all())

    async def state(arguments: dict) -> dict:
        return {'notifbridge': sender_of(arguments).state()}

    async def wait_displayed(arguments: dict) -> dict:
        sender = sender_of(arguments)
        event_id = text(arguments, 'event_id', required=True)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + number(arguments, 'timeout', 60.0)
        while True:
            for command in sender.displayed():
                if command.get('replyTo') == event_id:
                    return {'displayed': command}
            if loop.time() >= deadline:
                raise ControlError(f'no displayed for {event_id}')
            await asyncio.sleep(0.05)

    async def duplicate(arguments: dict) -> dict:
        return await run(faults.duplicate(sender_of(arguments), number(arguments, 'timeout', None)))

    async def tamper(arguments: dict) -> dict:
        return await run(faults.tampered(sender_of(arguments), text(arguments, 'app', 'com.google.Maps'),
                                         text(arguments, 'title', 'In 400 m'), text(arguments, 'body', 'Turn right'),
                                         number(arguments, 'timeout', 3.0)))

    async def before_key(arguments: dict) -> dict:
        return await run(faults.before_key(sender_of(arguments), text(arguments, 'app', 'com.google.Maps'),
                                           text(arguments, 'title', 'In 400 m'),
                                           text(arguments, 'body', 'Turn right'),
                                           number(arguments, 'delay', 1.0), number(arguments, 'timeout', None)))

    async def malformed_frame(arguments: dict) -> dict:
        try:
            return await run(faults.malformed_frame(sender_of(arguments), text(arguments, 'variant', 'no_start'),
                                                    timeout=number(arguments, 'timeout', 3.0),
                                                    size=int(number(arguments, 'size', faults.KEY_OVERFLOW_BYTES))))
        except ValueError as error:
            raise ControlError(str(error)) from error

    async def malformed_json(arguments: dict) -> dict:
        try:
            return await run(faults.malformed_json(sender_of(arguments), text(arguments, 'variant', 'envelope'),
                                                   number(arguments, 'timeout', 3.0)))
        except ValueError as error:
            raise ControlError(str(error)) from error

    tasks: set[asyncio.Task] = set()

    def background(name: str, handler):
        """`wait: false`: reply `started` at once (the control channel takes
        commands one after another: a passkey to type, a head unit to restart
        meanwhile) and report the outcome as a `notifbridge_done` event."""

        async def run_command(arguments: dict) -> dict:
            if arguments.get('wait', True) is not False:
                return await handler(arguments)

            async def finish() -> None:
                done = {'event': 'notifbridge_done', 'cmd': name, 'id': arguments.get('id'),
                        'phone': arguments.get('phone', arguments.get('name'))}
                try:
                    simulator.emit({**done, 'ok': True, **(await handler(arguments))})
                except Exception as error:  # noqa: BLE001 - reported like an error reply
                    simulator.emit({**done, 'ok': False, 'error': str(error) or repr(error)})

            task = asyncio.get_running_loop().create_task(finish())
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            return {'started': True}

        return run_command

    for name, handler in (('picker', picker), ('connect', connect), ('disconnect', disconnect), ('keys', keys), ('prepare', prepare),
                          ('activate', activate), ('rotate', rotate),
                          ('post', post), ('remove', remove), ('remove_all', remove_all), ('state', state),
                          ('wait_displayed', wait_displayed), ('duplicate', duplicate), ('tamper', tamper),
                          ('before_key', before_key), ('malformed_frame', malformed_frame),
                          ('malformed_json', malformed_json)):
        protocol.register(f'notifbridge_{name}', background(f'notifbridge_{name}', handler))
