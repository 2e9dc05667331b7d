"""A small NotifBridge receiver for the sender's tests: a Bumble peripheral
with the NotifBridge GATT service that decrypts with the phone's own Python
crypto. It stands in for the head unit (whose receiver is tested against
the simulated phone elsewhere); it is what the sender talks to here, not
what these tests test.

Knobs for the tests: `shows_passkey` (pair as a DisplayOnly receiver that
shows a passkey, as the head unit does, instead of Just Works),
`ready` (send the readiness frame on subscription),
`silent_chunks` (indexes of …8C47 values, counted from 0 on this receiver,
that are taken without an NBA1 ack), `drop_receipts` (how many receipts to
swallow), `displayed` (answer every `add` with a sealed `displayed`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid

from bumble import gatt, hci
from bumble.device import AdvertisingType, Device
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

from phone.notifbridge import framing, messages, xwing
from phone.notifbridge.sender import KEYS_UUID, NOTIFICATIONS_UUID, RECEIPTS_UUID, SERVICE_UUID

ADDRESS = hci.Address('C2:B5:00:00:00:42')
_P = gatt.Characteristic.Properties
NAME = 'Car NotifBdg'
# Flags, the service UUID; the name in the scan response.
ADVERTISING_DATA = bytes([2, 0x01, 0x06, 17, 0x07]) + uuid.UUID(SERVICE_UUID).bytes[::-1]
SCAN_RESPONSE = bytes([1 + len(NAME), 0x09]) + NAME.encode()


class FakeReceiver:
    def __init__(self, ready: bool = True, displayed: bool = True, key_write_without_response: bool = True,
                 encrypted: bool = False, shows_passkey: bool = False) -> None:
        """`encrypted`: every write (CCCD included) needs an encrypted link."""
        self.encrypted = encrypted
        self.shows_passkey = shows_passkey
        # The passkeys shown on the receiver's screen, in order.
        self.passkeys: list[str] = []
        self.ready = ready
        self.displayed = displayed
        self.silent_chunks: set[int] = set()
        self.drop_receipts = 0
        # Observations.
        self.key_values: list[bytes] = []
        self.key_frames: list[bytes] = []
        self.wrapped_values: list[bytes] = []
        self.envelope_frames: list[bytes] = []
        self.events: list[dict] = []
        self.plaintexts: list[bytes] = []
        self.receipts_sent: list[str] = []
        self.refused: list[str] = []
        self.prepare_writes = 0
        self.subscriptions = 0
        # What happened, in order: 'subscribed', 'key', 'notification'.
        self.timeline: list[str] = []
        # Keys: prepared by exchange id, generations (info, exporter secret) newest first.
        self.prepared: dict[str, tuple[bytes, bytes]] = {}
        self.generations: list[tuple[bytes, bytes]] = []
        self.activated: set[str] = set()
        self.inbox: list[tuple[dict, bytes]] = []
        self._keys = framing.FrameAssembler(16 * 1024)
        self._notifications = framing.FrameAssembler(256 * 1024)
        self._outgoing: asyncio.Queue = asyncio.Queue()
        self.connection = None
        self.closing = False
        self._tasks: set[asyncio.Task] = set()
        key_properties = _P.WRITE | (_P.WRITE_WITHOUT_RESPONSE if key_write_without_response else 0)
        self.keys = gatt.Characteristic(KEYS_UUID, key_properties, gatt.Characteristic.Permissions.WRITEABLE,
                                        gatt.CharacteristicValue(write=self._on_key_write))
        self.notifications = gatt.Characteristic(
            NOTIFICATIONS_UUID, _P.WRITE | _P.WRITE_WITHOUT_RESPONSE, gatt.Characteristic.Permissions.WRITEABLE,
            gatt.CharacteristicValue(write=self._on_notification_write))
        self.receipts = gatt.Characteristic(RECEIPTS_UUID, _P.INDICATE | _P.READ,
                                            gatt.Characteristic.Permissions.READABLE, b'')

    async def start(self, port: int) -> None:
        """On the simulator's head-unit controller (H4 over TCP), advertising."""
        self.transport = await open_transport(f'tcp-client:127.0.0.1:{port}')
        self.device = Device.with_hci('receiver', ADDRESS, self.transport.source, self.transport.sink)
        self.device.add_service(gatt.Service(SERVICE_UUID, [self.keys, self.notifications, self.receipts]))
        if self.shows_passkey:
            self.device.pairing_config_factory = lambda _connection: PairingConfig(
                sc=True, mitm=True, bonding=True, delegate=_ScreenDelegate(self.passkeys))
        if self.encrypted:
            for attribute in self.device.gatt_server.attributes:
                if attribute.permissions & gatt.Characteristic.Permissions.WRITEABLE:
                    attribute.permissions |= gatt.Characteristic.Permissions.WRITE_REQUIRES_ENCRYPTION
        self.device.on('connection', self._on_connection)
        self.device.on('characteristic_subscription', self._on_subscription)
        server = self.device.gatt_server
        original_prepare = server.on_att_prepare_write_request

        def counted_prepare(bearer, request):
            self.prepare_writes += 1
            return original_prepare(bearer, request)

        server.on_att_prepare_write_request = counted_prepare
        await self.device.power_on()
        await self._advertise()
        self._worker = asyncio.get_running_loop().create_task(self._indicate_loop())

    @property
    def key_overflows(self) -> int:
        """Key frames abandoned at the 16 KiB cap."""
        return self._keys.overflows

    async def close(self) -> None:
        self.closing = True
        self._worker.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.transport.close()

    # ------------------------------------------------------------- link
    def _on_connection(self, connection) -> None:
        self.connection = connection
        connection.on('disconnection', lambda _reason: self._on_disconnection(connection))
        self._keys.reset()
        self._notifications.reset()

    def _on_disconnection(self, connection) -> None:
        if connection is self.connection:
            self.connection = None
        if not self.closing:
            self._tasks.add(asyncio.get_running_loop().create_task(self._advertise()))

    async def _advertise(self) -> None:
        await self.device.start_advertising(advertising_type=AdvertisingType.UNDIRECTED_CONNECTABLE_SCANNABLE,
                                            own_address_type=hci.OwnAddressType.RANDOM, auto_restart=False,
                                            advertising_interval_min=20, advertising_interval_max=20,
                                            advertising_data=ADVERTISING_DATA, scan_response_data=SCAN_RESPONSE)

    def _on_subscription(self, _bearer, characteristic, _notify, indicate) -> None:
        if characteristic.handle == self.receipts.handle and indicate:
            self.subscriptions += 1
            self.timeline.append('subscribed')
            if self.ready:
                self.send_frame(framing.READY)

    def send_frame(self, payload: bytes) -> None:
        size = (self.connection.att_mtu if self.connection else 23) - 3
        for value in framing.frame_values(payload, size):
            self._outgoing.put_nowait(value)

    async def _indicate_loop(self) -> None:
        while True:
            value = await self._outgoing.get()
            if self.connection is None:
                continue
            try:
                await self.device.indicate_subscriber(self.connection, self.receipts, value)
            except Exception:  # noqa: BLE001 - the link went away
                pass

    def _receipt(self, receipt: str | None) -> None:
        if receipt is None:
            return
        if self.drop_receipts > 0:
            self.drop_receipts -= 1
            return
        self.receipts_sent.append(receipt)
        self.send_frame(json.dumps({'kind': messages.RECEIPT_KIND, 'id': receipt}, separators=(',', ':')).encode())

    # ------------------------------------------------------------- keys
    def _on_key_write(self, _connection, value: bytes) -> None:
        self.key_values.append(bytes(value))
        self.timeline.append('key')
        frame = self._keys.feed(bytes(value))
        if frame is None:
            return
        self.key_frames.append(frame)
        try:
            packet = json.loads(frame)
            phase = packet.get('phase')
            # The legacy packet (no phase) is a prepare and an activate in one.
            exchange = packet['exchangeID'] if phase else packet['publicKey'][:24]
            if phase in ('prepare', None):
                seed, public_key = (xwing_b64(packet['privateKeySeed']), xwing_b64(packet['publicKey']))
                if xwing.public_key(seed) != public_key:
                    self.refused.append('public key does not match the seed')
                    return
                self.prepared[exchange] = (seed, public_key)
            if phase in ('activate', None):
                if exchange not in self.prepared:
                    self.refused.append('unknown exchange')
                    return
                secret = xwing.decapsulate(self.prepared[exchange][0], xwing_b64(packet['encapsulatedKey']))
                info = messages.info(packet['ciphersuite'], packet['version'], packet['identifier'])
                self.generations.insert(0, (info, xwing.key_schedule(secret, info)['exporter_secret']))
                self.activated.add(exchange)
        except (ValueError, KeyError, TypeError) as error:
            self.refused.append(f'key packet: {error!r}')
            return
        self._receipt(packet.get('receiptID'))
        if phase != 'prepare':
            waiting, self.inbox = self.inbox, []
            for envelope, raw in waiting:
                self._open(envelope, raw)

    # ------------------------------------------------------ notifications
    def _on_notification_write(self, _connection, value: bytes) -> None:
        value = bytes(value)
        index = len(self.wrapped_values)
        self.wrapped_values.append(value)
        self.timeline.append('notification')
        # A writer that relays no receipts writes the frame plain: nothing to ack.
        chunk_id, inner = framing.unwrap(value) or (None, value)
        frame = self._notifications.feed(inner)
        if chunk_id is not None and index not in self.silent_chunks:
            self._outgoing.put_nowait(framing.ack(chunk_id))
        if frame is not None:
            self.envelope_frames.append(frame)
            try:
                envelope = json.loads(frame)
                envelope['sessionID'], envelope['data']
            except (ValueError, KeyError, TypeError) as error:
                self.refused.append(f'envelope: {error!r}')
                return
            self._open(envelope, frame)

    def _open(self, envelope: dict, raw: bytes) -> None:
        sealed = xwing_b64(envelope['data'])
        session = uuid.UUID(envelope['sessionID'])
        for info, secret in self.generations:
            key = xwing.export(secret, messages.context(info, messages.HOST_TO_ACCESSORY, session))
            try:
                plaintext = xwing.open_blob(key, sealed)
            except Exception:  # noqa: BLE001 - another generation's key
                continue
            self.plaintexts.append(plaintext)
            try:
                event = json.loads(plaintext)
            except ValueError:
                self.refused.append('event not JSON')
                self._receipt(envelope.get('receiptID'))
                return
            self.events.append(event)
            self._receipt(envelope.get('receiptID'))
            if self.displayed and event.get('kind') == 'add':
                self._displayed(event, info, secret, session)
            return
        if not self.generations or set(self.prepared) - self.activated:
            # A prepared key is not activated yet: the envelope waits for it.
            self.inbox.append((envelope, raw))
            return
        self.refused.append('no key opens the envelope')

    def _displayed(self, event: dict, info: bytes, secret: bytes, session: uuid.UUID) -> None:
        note = event['notification']
        self.send_command('displayed', messages.identity(note['sourceIdentifier'], note['notificationIdentifier']),
                          event['id'], session, didAlert=True)

    def send_command(self, kind: str, identity: dict, reply_to: str, session: uuid.UUID, **extra) -> None:
        """A reverse command sealed with the newest generation's AccessoryToHost key."""
        info, secret = self.generations[0]
        command = {'version': 3, 'id': str(uuid.uuid4()).upper(), 'kind': kind, **extra, 'identity': identity,
                   'replyTo': reply_to}
        key = xwing.export(secret, messages.context(info, messages.ACCESSORY_TO_HOST, session))
        self.send_frame(messages.envelope(session, xwing.seal(key, json.dumps(command).encode()), None))


class _ScreenDelegate(PairingDelegate):
    """A receiver with a screen and no keyboard: it shows the passkey."""

    def __init__(self, shown: list[str]) -> None:
        super().__init__(io_capability=PairingDelegate.IoCapability.DISPLAY_OUTPUT_ONLY)
        self.shown = shown

    async def display_number(self, number: int, digits: int) -> None:
        self.shown.append(f'{number:0{digits}d}')


def xwing_b64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)
