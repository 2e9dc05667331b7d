"""The NotifBridge app on the iPhone: the GATT client (central) that forwards
notifications to a receiver, over any Bumble connection where the phone is
the central.

    sender = NotifBridgeSender(emit, connector=reconnect)
    await sender.attach(connection)      # discover, subscribe to …8C4B, wait for readiness
    await sender.exchange_keys()         # prepare + activate, each with its receipt
    await sender.post('com.google.Maps', 'In 500 m', 'Turn left')

What it does, as the phone-side app does:

- subscribes to …8C4B (indications) before it writes anything, then waits
  for the readiness frame `NB-RECEIVER-READY-1` (at most `ready_timeout`;
  it goes on without it). Readiness in the middle of a frame restarts that
  frame from START.
- key exchange on …8C46, no wrapper: a fresh X-Wing key pair (random seed)
  per generation; `prepare` (exchange id, receipt id, public key, seed),
  its receipt, then `activate` (the encapsulation to that public key, the
  identifier, ciphersuite and version), its receipt. Values of MTU − 3
  bytes, as a burst of Write Without Response when the characteristic
  offers it (`key_write='without_response'`), else write requests
  (`key_write='request'`).
- envelopes on …8C47: the Event v3 JSON sealed with AES-256-GCM under the
  HPKE export of info + "-HostToAccessory-" + session id; every value
  `NBW1` + 16 random bytes + START / at most 200 payload bytes / END, a
  write request each (Bumble's client turns a value over MTU − 3 into
  Prepare Write + Execute Write by itself); the next value only after the
  write response and the matching NBA1 indication. `chunk_timeout` (16 s)
  of silence: disconnect, reconnect (`connector`), send the frame again
  from START, at most `frame_resends` (2) times. With `relay_receipts`
  False (the app's writer that relays no receipts) the frame goes plain,
  as key frames do: no NBW1, no acks; 512-byte write requests, or a burst
  of Write Without Response values of MTU − 3 bytes.
- every key packet and envelope waits `receipt_timeout` (20 s) for its
  receipt and is sent again up to `receipt_retries` (3) times.
- reverse frames on …8C4B (START, slices, END; a 20-byte value starting
  NBA1 is an ack): receipts, readiness, and envelopes sealed with the
  AccessoryToHost key (`displayed`, `clear`, `respond`), opened with the
  generations held, newest first, and recorded in `commands`.
- rotation: every security session is a new key generation
  (`exchange_keys()` again); the newest four are kept for reverse traffic.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import uuid
from collections.abc import Awaitable, Callable

from bumble import att
from bumble.core import UUID
from bumble.gatt import Characteristic
from cryptography.exceptions import InvalidTag

from . import framing, messages, xwing
from .swift_json import SwiftDate

logger = logging.getLogger(__name__)

SERVICE_UUID = 'D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44'
KEYS_UUID = 'D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C46'
NOTIFICATIONS_UUID = 'D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C47'
RECEIPTS_UUID = 'D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C4B'

KEY_WRITE_STYLES = ('without_response', 'request')
# ATT Insufficient Authentication, Insufficient Encryption: iOS secures the link and retries.
INSUFFICIENT_SECURITY = (0x05, 0x0F)
# Reverse frames are small (receipts, commands); a broken receiver must not
# make the phone hold much.
REVERSE_FRAME_CAP = 64 * 1024
KEPT_GENERATIONS = 4
# A receiver that keeps sending readiness must not keep the phone restarting for ever.
MAX_RESTARTS = 8

Emit = Callable[..., None]


class DeliveryFailed(Exception):
    """A frame or its receipt did not get through after every retry."""


class _Stalled(Exception):
    pass


class _Restart(Exception):
    pass


class _LinkLost(Exception):
    pass


@dataclasses.dataclass
class Generation:
    """One key generation: the key pair the phone made, what it encapsulated
    to it, and the exporter secret both ends derive."""

    exchange_id: uuid.UUID
    seed: bytes
    public_key: bytes
    encapsulated_key: bytes
    exporter_secret: bytes
    identifier: str
    ciphersuite: str
    version: str
    session: uuid.UUID
    prepared: bool = False
    activated: bool = False

    @classmethod
    def new(cls, ciphersuite: str, version: str, identifier: str | None = None) -> 'Generation':
        seed = os.urandom(32)
        public_key = xwing.public_key(seed)
        shared_secret, encapsulated = xwing.encapsulate(public_key)
        identifier = identifier or messages.uuid_text(uuid.uuid4())
        info = messages.info(ciphersuite, version, identifier)
        return cls(uuid.uuid4(), seed, public_key, encapsulated,
                   xwing.key_schedule(shared_secret, info)['exporter_secret'],
                   identifier, ciphersuite, version, uuid.uuid4())

    @property
    def info(self) -> bytes:
        return messages.info(self.ciphersuite, self.version, self.identifier)

    def key(self, direction: str, session: uuid.UUID | None = None) -> bytes:
        return xwing.export(self.exporter_secret, messages.context(self.info, direction, session or self.session))

    def describe(self) -> dict:
        return {'exchange_id': messages.uuid_text(self.exchange_id), 'session': messages.uuid_text(self.session),
                'identifier': self.identifier, 'ciphersuite': self.ciphersuite, 'version': self.version,
                'prepared': self.prepared, 'activated': self.activated}


class NotifBridgeSender:
    def __init__(
        self,
        emit: Emit | None = None,
        *,
        connector: Callable[[], Awaitable[object]] | None = None,
        key_write: str = 'without_response',
        chunk_timeout: float = 16.0,
        frame_resends: int = 2,
        receipt_timeout: float = 20.0,
        receipt_retries: int = 3,
        ready_timeout: float = 10.0,
        ciphersuite: str = 'XWing',
        version: str = 'Version1',
        relay_receipts: bool = True,
    ) -> None:
        if key_write not in KEY_WRITE_STYLES:
            raise ValueError(f'key_write is one of {", ".join(KEY_WRITE_STYLES)}')
        self._emit = emit or (lambda event, **fields: None)
        self.connector = connector
        self.key_write = key_write
        self.chunk_timeout = chunk_timeout
        self.frame_resends = frame_resends
        self.receipt_timeout = receipt_timeout
        self.receipt_retries = receipt_retries
        self.ready_timeout = ready_timeout
        self.ciphersuite = ciphersuite
        self.version = version
        # The app's writer wraps notification chunks in NBW1 and waits for
        # each NBA1 only when it relays receipts; otherwise it writes the
        # frame plain, as it writes key frames.
        self.relay_receipts = relay_receipts

        self.connection = None
        self._characteristics: dict[str, object] = {}
        self._reverse = framing.FrameAssembler(REVERSE_FRAME_CAP)
        self._ready = asyncio.Event()
        self._interrupt: asyncio.Future | None = None
        self._acks: dict[bytes, asyncio.Future] = {}
        self._receipt_waiters: dict[str, list[asyncio.Future]] = {}
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task] = set()

        self.generations: list[Generation] = []  # activated, newest first
        self.prepared: dict[str, Generation] = {}  # prepared, not activated yet, by exchange id
        self.queue: list[dict] = []
        self.receipts: list[str] = []  # every receipt id received, in order
        self.commands: list[dict] = []  # reverse commands opened
        self.notifications: dict[tuple[str, str], dict] = {}
        self.last_envelope: tuple[bytes, str] | None = None  # (JSON, receipt id)
        self.counts = {'readiness': 0, 'frames': 0, 'chunks': 0, 'acks': 0, 'stalls': 0, 'restarts': 0,
                       'receipt_timeouts': 0, 'reconnections': 0, 'unreadable_reverse': 0, 'stray_acks': 0}

    # ------------------------------------------------------------------ link
    @property
    def connected(self) -> bool:
        return self.connection is not None

    @property
    def mtu(self) -> int:
        return self.connection.gatt_client.mtu if self.connection is not None else att.ATT_DEFAULT_MTU

    async def attach(self, connection) -> None:
        """Take a link: discover the service, subscribe to …8C4B, wait for
        readiness. A link on which that fails is let go."""
        self.connection = connection
        self._reverse.reset()
        self._ready.clear()
        connection.on('disconnection', lambda reason: self._on_disconnection(connection, reason))
        try:
            await self._subscribe(connection.gatt_client)
        except BaseException:
            await self.disconnect()
            raise
        try:
            await asyncio.wait_for(self._ready.wait(), self.ready_timeout)
        except asyncio.TimeoutError:
            logger.info('no readiness frame within %s s: sending anyway', self.ready_timeout)
            self._emit('notifbridge_link', state='no_readiness')

    async def _subscribe(self, client) -> None:
        services = await client.discover_services([UUID(SERVICE_UUID)])
        if not services:
            raise DeliveryFailed('the NotifBridge service is not there')
        characteristics = await client.discover_characteristics([], services[0])
        found = {str(c.uuid).upper(): c for c in characteristics}
        missing = [u for u in (KEYS_UUID, NOTIFICATIONS_UUID, RECEIPTS_UUID) if u not in found]
        if missing:
            raise DeliveryFailed(f'characteristics missing: {", ".join(missing)}')
        self._characteristics = {u: found[u] for u in (KEYS_UUID, NOTIFICATIONS_UUID, RECEIPTS_UUID)}
        await self._secured(lambda: client.subscribe(self._characteristics[RECEIPTS_UUID], self._on_indication,
                                                     prefer_notify=False))
        self._emit('notifbridge_link', state='subscribed', mtu=self.mtu)

    async def _secured(self, operation: Callable[[], Awaitable]):
        """Run an ATT request; if the accessory answers Insufficient
        Authentication or Encryption, secure the link as iOS does (encrypt with
        the bond's key, else pair) and run it once more."""
        try:
            return await operation()
        except att.ATT_Error as error:
            if error.error_code not in INSUFFICIENT_SECURITY or self.connection is None:
                raise
            self._emit('notifbridge_link', state='securing', att_error=error.error_code)
        try:
            await self.connection.encrypt()
        except Exception as error:  # noqa: BLE001 - no bond (or a forgotten one): pair
            logger.debug('encryption with a bond failed (%r): pairing', error)
            await self.connection.pair()
        return await operation()

    def _on_disconnection(self, connection, reason: int) -> None:
        if connection is not self.connection:
            return
        self.connection = None
        self._characteristics = {}
        self._reverse.reset()
        self._interrupt_frame('disconnected')
        self._emit('notifbridge_link', state='disconnected', reason=reason)

    async def disconnect(self) -> None:
        connection = self.connection
        if connection is not None:
            try:
                await connection.disconnect()
            except Exception as error:  # noqa: BLE001 - already gone
                logger.debug('disconnect: %r', error)
            self._on_disconnection(connection, 0x16)

    async def _link(self) -> None:
        """A usable link: the current one, or a new one from the connector."""
        if self.connection is not None:
            return
        if self.connector is None:
            raise DeliveryFailed('not connected')
        self.counts['reconnections'] += 1
        try:
            connection = await self.connector()
        except Exception as error:  # noqa: BLE001 - Bumble's connection errors and timeouts
            raise DeliveryFailed(f'reconnection failed: {error!r}') from error
        await self.attach(connection)

    def _interrupt_frame(self, why: str) -> None:
        if self._interrupt is not None and not self._interrupt.done():
            self._interrupt.set_result(why)

    # --------------------------------------------------------------- reverse
    def _on_indication(self, value) -> None:
        value = bytes(value)
        chunk_id = framing.acked_chunk(value)
        if chunk_id is not None:
            waiter = self._acks.get(chunk_id)
            if waiter is not None and not waiter.done():
                self.counts['acks'] += 1
                waiter.set_result(None)
            else:
                self.counts['stray_acks'] += 1
            return
        frame = self._reverse.feed(value)
        if frame is not None:
            self._on_reverse_frame(frame)

    def _on_reverse_frame(self, frame: bytes) -> None:
        if frame == framing.READY:
            self.counts['readiness'] += 1
            self._ready.set()
            self._interrupt_frame('ready')
            self._emit('notifbridge_ready', count=self.counts['readiness'])
            return
        message = messages.parse_object(frame)
        receipt = messages.receipt_id(message) if message is not None else None
        if receipt is not None:
            self.receipts.append(receipt)
            for waiter in self._receipt_waiters.pop(receipt, []):
                if not waiter.done():
                    waiter.set_result(None)
            self._emit('notifbridge_receipt', id=receipt)
            return
        sealed = messages.reverse_envelope(message) if message is not None else None
        if sealed is None:
            self.counts['unreadable_reverse'] += 1
            logger.warning('reverse frame neither readiness, receipt nor envelope (%d bytes)', len(frame))
            return
        session, blob = sealed
        for generation in self.generations:
            try:
                plaintext = xwing.open_blob(generation.key(messages.ACCESSORY_TO_HOST, session), blob)
            except (InvalidTag, ValueError):
                continue
            command = messages.parse_object(plaintext)
            if command is None:
                break
            record = {'command': command, 'session': messages.uuid_text(session),
                      'exchange_id': messages.uuid_text(generation.exchange_id),
                      'json': plaintext.decode('utf-8', 'replace')}
            self.commands.append(record)
            self._emit('notifbridge_command', kind=command.get('kind'), **record)
            if command.get('kind') in ('clear', 'respond'):
                task = asyncio.get_running_loop().create_task(self._answer(command))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            return
        self.counts['unreadable_reverse'] += 1
        logger.warning('reverse envelope no key opens (session %s)', messages.uuid_text(session))

    # ----------------------------------------------------------------- frames
    async def _wait_chunk(self, awaitable) -> None:
        """Wait for `awaitable` unless silence, readiness or the link's end comes first."""
        work = asyncio.ensure_future(awaitable)
        # A write abandoned by a stall or a restart may still fail later: nobody waits for it.
        work.add_done_callback(lambda done: done.cancelled() or done.exception())
        try:
            done, _ = await asyncio.wait({work, self._interrupt}, timeout=self.chunk_timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
            if work in done:
                error = work.exception()
                if error is not None:
                    if self.connection is None:
                        raise _LinkLost() from error
                    raise error
                return
            if self._interrupt in done:
                raise _Restart() if self._interrupt.result() == 'ready' else _LinkLost()
            raise _Stalled()
        finally:
            if not work.done():
                work.cancel()

    async def _write_wrapped(self, inner: bytes) -> None:
        """One NBW1 value on …8C47, done when both its write response and its NBA1 came."""
        characteristic = self._characteristics[NOTIFICATIONS_UUID]
        chunk_id, value = framing.wrap(inner)
        acked = asyncio.get_running_loop().create_future()
        self._acks[chunk_id] = acked
        try:
            await self._wait_chunk(asyncio.gather(
                self._secured(lambda: characteristic.write_value(value, with_response=True)), acked))
        finally:
            self._acks.pop(chunk_id, None)
        self.counts['chunks'] += 1

    async def _write_plain(self, channel: str, payload: bytes) -> None:
        """A frame without wrapper: values of MTU − 3 bytes as a burst of
        Write Without Response where the characteristic offers it (and
        `key_write` asks for it), else write requests of the longest value
        a write takes (512 bytes: long writes)."""
        characteristic = self._characteristics[channel]
        without_response = bool(self.key_write == 'without_response'
                                and characteristic.properties & Characteristic.Properties.WRITE_WITHOUT_RESPONSE)
        size = self.mtu - 3 if without_response or channel == KEYS_UUID else framing.LONGEST_VALUE
        for value in framing.frame_values(payload, size):
            await self._wait_chunk(self._secured(
                lambda: characteristic.write_value(value, with_response=not without_response)))

    async def _send_frame(self, channel: str, payload: bytes) -> None:
        """One whole frame, restarted on readiness, resent after a stall or a lost link."""
        failures = restarts = 0
        while True:
            await self._link()
            self._interrupt = asyncio.get_running_loop().create_future()
            try:
                if channel == NOTIFICATIONS_UUID and self.relay_receipts:
                    for inner in framing.frame_values(payload, framing.WRAPPED_PAYLOAD):
                        await self._write_wrapped(inner)
                else:
                    await self._write_plain(channel, payload)
                self.counts['frames'] += 1
                return
            except _Restart:
                restarts += 1
                self.counts['restarts'] += 1
                self._emit('notifbridge_frame', state='restarted', channel=channel[-4:])
                if restarts > MAX_RESTARTS:
                    raise DeliveryFailed('the receiver keeps sending readiness') from None
            except (_Stalled, _LinkLost) as problem:
                failures += 1
                stalled = isinstance(problem, _Stalled)
                if stalled:
                    self.counts['stalls'] += 1
                    await self.disconnect()
                self._emit('notifbridge_frame', state='stalled' if stalled else 'link_lost', channel=channel[-4:],
                           resend=failures <= self.frame_resends)
                if failures > self.frame_resends:
                    raise DeliveryFailed(f'frame on …{channel[-4:]} given up after {failures} tries') from None
            finally:
                self._interrupt = None

    async def deliver(self, kind: str, channel: str, payload: bytes, receipt: str | None,
                      retries: int | None = None, timeout: float | None = None) -> bool:
        """Send a frame and wait for its receipt, sending it again on a timeout.
        True once the receipt came; False after every try (or at once when no
        receipt is expected)."""
        retries = self.receipt_retries if retries is None else retries
        timeout = self.receipt_timeout if timeout is None else timeout
        item = {'kind': kind, 'receipt': receipt, 'attempts': 0, 'bytes': len(payload)}
        self.queue.append(item)
        try:
            async with self._lock:
                for _attempt in range(1 + retries):
                    waiter = asyncio.get_running_loop().create_future()
                    if receipt is not None:
                        self._receipt_waiters.setdefault(receipt, []).append(waiter)
                    item['attempts'] += 1
                    try:
                        await self._send_frame(channel, payload)
                        if receipt is None:
                            return False
                        await asyncio.wait_for(waiter, timeout)
                        return True
                    except asyncio.TimeoutError:
                        self.counts['receipt_timeouts'] += 1
                        self._emit('notifbridge_receipt_timeout', kind=kind, receipt=receipt, attempt=item['attempts'])
                    finally:
                        waiters = self._receipt_waiters.get(receipt, [])
                        if waiter in waiters:
                            waiters.remove(waiter)
                return False
        finally:
            self.queue.remove(item)

    async def send_values(self, channel: str, values: list[bytes], wrapped: bool = True) -> None:
        """Values as they are, no framing added (the fault commands' malformed
        frames): on …8C47 each wrapped in NBW1 and paced by its ack unless
        `wrapped` is False (then nothing acks it); on …8C46 write requests."""
        async with self._lock:
            await self._link()
            characteristic = self._characteristics[channel]
            self._interrupt = asyncio.get_running_loop().create_future()
            try:
                for inner in values:
                    if channel == NOTIFICATIONS_UUID and wrapped:
                        await self._write_wrapped(inner)
                    else:
                        await self._wait_chunk(characteristic.write_value(inner, with_response=True))
            except (_Restart, _Stalled, _LinkLost) as problem:
                raise DeliveryFailed(f'raw values not taken: {type(problem).__name__.strip("_").lower()}') from None
            finally:
                self._interrupt = None

    # ------------------------------------------------------------------- keys
    def new_generation(self, identifier: str | None = None) -> Generation:
        return Generation.new(self.ciphersuite, self.version, identifier)

    async def prepare(self, generation: Generation) -> bool:
        receipt = uuid.uuid4()
        payload = messages.prepare(generation.exchange_id, receipt, generation.public_key, generation.seed)
        generation.prepared = await self.deliver('prepare', KEYS_UUID, payload, messages.uuid_text(receipt))
        if generation.prepared:
            self.prepared[messages.uuid_text(generation.exchange_id)] = generation
        return generation.prepared

    async def activate(self, generation: Generation) -> bool:
        receipt = uuid.uuid4()
        payload = messages.activate(generation.exchange_id, receipt, generation.encapsulated_key,
                                    generation.identifier, generation.ciphersuite, generation.version)
        if not await self.deliver('activate', KEYS_UUID, payload, messages.uuid_text(receipt)):
            return False
        self._activated(generation)
        return True

    def _activated(self, generation: Generation) -> None:
        self.prepared.pop(messages.uuid_text(generation.exchange_id), None)
        generation.activated = True
        self.generations.insert(0, generation)
        del self.generations[KEPT_GENERATIONS:]
        self._emit('notifbridge_keys', **generation.describe())

    async def exchange_keys(self, identifier: str | None = None, legacy: bool = False) -> Generation:
        """A new security session: a new key generation, prepared and
        activated (`legacy`: the older app's single packet instead)."""
        generation = self.new_generation(identifier)
        if legacy:
            receipt = uuid.uuid4()
            payload = messages.legacy_keys(receipt, generation.public_key, generation.seed,
                                           generation.encapsulated_key, generation.identifier,
                                           generation.ciphersuite, generation.version)
            if not await self.deliver('legacy', KEYS_UUID, payload, messages.uuid_text(receipt)):
                raise DeliveryFailed('no receipt for the legacy key packet')
            generation.prepared = True
            self._activated(generation)
            return generation
        if not await self.prepare(generation):
            raise DeliveryFailed('no receipt for prepare')
        if not await self.activate(generation):
            raise DeliveryFailed('no receipt for activate')
        return generation

    # ---------------------------------------------------------------- events
    def seal(self, event: bytes, generation: Generation | None = None) -> tuple[bytes, str]:
        """(envelope JSON, receipt id) for an Event, sealed with the newest generation."""
        generation = generation or self.newest()
        receipt = uuid.uuid4()
        sealed = xwing.seal(generation.key(messages.HOST_TO_ACCESSORY), event)
        return messages.envelope(generation.session, sealed, receipt), messages.uuid_text(receipt)

    def generation(self, exchange_id: str | None) -> Generation:
        """An activated generation by exchange id (None: the newest)."""
        if exchange_id is None:
            return self.newest()
        for generation in self.generations:
            if messages.uuid_text(generation.exchange_id) == exchange_id.upper():
                return generation
        raise DeliveryFailed(f'no activated generation {exchange_id}')

    def newest(self) -> Generation:
        if not self.generations:
            raise DeliveryFailed('no activated key: exchange keys first')
        return self.generations[0]

    async def send_event(self, event: bytes, generation: Generation | None = None, **deliver) -> dict:
        envelope, receipt = self.seal(event, generation)
        self.last_envelope = (envelope, receipt)
        received = await self.deliver('envelope', NOTIFICATIONS_UUID, envelope, receipt, **deliver)
        return {'receipt': receipt, 'received': received, 'envelope_bytes': len(envelope)}

    async def post(self, app: str, title: str | None = None, body: str | None = None, *,
                   notification_id: str | None = None, kind: str | None = None,
                   generation: Generation | None = None, **fields) -> dict:
        """A notification appears (`add`), or changes (`update`: a known
        notification id of that app). Sealed with the newest generation unless
        one is given (an older one: the receiver's grace after a rotation)."""
        known = notification_id is not None and (app, notification_id) in self.notifications
        kind = kind or ('update' if known else 'add')
        notification_id = notification_id or messages.uuid_text(uuid.uuid4())
        notification = messages.notification(app, notification_id, title=title, body=body, **fields)
        event_id = uuid.uuid4()
        self.notifications[(app, notification_id)] = notification
        result = await self.send_event(messages.event(kind, event_id, notification_fields=notification), generation)
        return {'event_id': messages.uuid_text(event_id), 'kind': kind, 'app': app,
                'notification_id': notification_id, **result}

    async def remove(self, app: str, notification_id: str | None = None) -> dict:
        if notification_id is None:
            ids = [nid for (source, nid) in self.notifications if source == app]
            if not ids:
                raise ValueError(f'no notification of {app} to remove')
            notification_id = ids[-1]
        self.notifications.pop((app, notification_id), None)
        event_id = uuid.uuid4()
        event = messages.event('remove', event_id, identity=messages.identity(app, notification_id))
        result = await self.send_event(event)
        return {'event_id': messages.uuid_text(event_id), 'kind': 'remove', 'app': app,
                'notification_id': notification_id, **result}

    async def remove_all(self) -> dict:
        self.notifications.clear()
        event_id = uuid.uuid4()
        result = await self.send_event(messages.event('removeAll', event_id, sent_at=SwiftDate.now()))
        return {'event_id': messages.uuid_text(event_id), 'kind': 'removeAll', **result}

    async def _answer(self, command: dict) -> None:
        """`clear` and `respond` get a `commandResult` event; `clear` also takes
        the notification off the phone. (The result's fields are the
        simulator's: the receiver only needs the kind.)"""
        identity = command.get('identity') if isinstance(command.get('identity'), dict) else {}
        key = (identity.get('sourceIdentifier'), identity.get('notificationIdentifier'))
        if command.get('kind') == 'clear':
            self.notifications.pop(key, None)
        result = {'commandID': command.get('id'), 'kind': command.get('kind'), 'success': True}
        try:
            await self.send_event(messages.event('commandResult', uuid.uuid4(), result=result))
        except DeliveryFailed as error:
            logger.warning('commandResult not delivered: %s', error)

    # ------------------------------------------------------------------ state
    def displayed(self) -> list[dict]:
        return [record['command'] for record in self.commands if record['command'].get('kind') == 'displayed']

    def state(self) -> dict:
        return {
            'connected': self.connected,
            'peer': self.connection.peer_address.to_string(with_type_qualifier=False) if self.connection else None,
            'mtu': self.mtu,
            'key_write': self.key_write,
            'ready': self._ready.is_set(),
            'generations': [g.describe() for g in self.generations],
            'prepared': [g.describe() for g in self.prepared.values()],
            'queue': [dict(item) for item in self.queue],
            'receipts': list(self.receipts),
            'commands': [record['command'] for record in self.commands],
            'displayed': self.displayed(),
            'notifications': [{'app': app, 'notification_id': nid} for app, nid in self.notifications],
            'counts': dict(self.counts),
        }


async def connect_central(device, address: str, *, mtu: int | None = 185, timeout: float = 5.0):
    """The phone (`device`, a Bumble Device) connects to an accessory as the
    central and asks for `mtu` (iOS: 185; None keeps 23). Settings pairing
    may hand over its own connection instead: `attach()` takes any."""
    from bumble import hci

    connection = await device.connect(hci.Address(address), own_address_type=hci.OwnAddressType.RANDOM,
                                      timeout=timeout)
    if mtu is not None and mtu > att.ATT_DEFAULT_MTU:
        await connection.gatt_client.request_mtu(mtu)
    return connection
