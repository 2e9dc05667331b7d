"""One simulated iPhone running the NavigationNotifier Server app.

A Bumble Device (host) on its own corrected controller on the shared link. It
advertises like an iOS app in the foreground (connectable undirected legacy
advertising from a resolvable private address, the service UUID in the advertising
data, the name in the scan response), keeps advertising while connected as iOS does,
asks for a larger ATT MTU after connecting, and serves the NavigationNotifier
service with the phone rules of docs/PROTOCOL.md §1. With the app in the background
it advertises as iOS then does (background.py): no service UUID, no name.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import struct
import uuid
from collections.abc import Callable

from bumble import att, hci
from bumble.device import AdvertisingType, Device, DeviceConfiguration
from bumble.host import Host
from bumble.profiles.gap import GenericAccessService
from bumble.transport.common import AsyncPipeSink

from ..controller import CorrectedController, SimulatedLink
from ..controller.central_host import IosSmpSession, fail_indications_on_disconnection
from . import gatt_policy
from .connection_parameters import judge_update_requests
from .ams_source import MediaSource
from .ancs_provider import NotificationProvider
from .background import APPLE, BACKGROUND_INTERVAL_MS, AddressRotation, background_advertising_data
from .apple_services import (
    AMS_CHARACTERISTICS,
    ANCS_CHARACTERISTICS,
    AmsService,
    AncsService,
    GattLink,
    require_encryption,
)
from .current_time import CurrentTimeService
from .identity import PhoneIdentity, resolvable_private_address
from .media_player import track_from
from .navigation_service import (
    PAIRED_CLIENT_NAME,
    SERVER_NAME,
    SERVICE_UUID,
    UNPAIRED,
    NavigationNotifierService,
    PairedClientName,
    valid_name,
)
from .security import PhoneSecurity
from .settings_pairing import SettingsBluetooth

logger = logging.getLogger(__name__)

BLUETOOTH_5_3 = 0x0C
# GAP Appearance: category Phone (1), generic subcategory.
APPEARANCE_PHONE = 0x0040
# iPhones advertise "LE General Discoverable" plus the simultaneous LE/BR-EDR bits.
ADVERTISING_FLAGS = 0x1A

REMOTE_USER_TERMINATED = 0x13
POWER_OFF = 0x15

Emit = Callable[[dict], None]


class PhoneError(Exception):
    """A command the phone cannot carry out in its current state."""


@dataclasses.dataclass
class PhoneSettings:
    name: str
    local_name: str | None = None
    server_name: str | None = None
    paired_client: str = UNPAIRED
    rssi: int = -60
    advertising_interval_ms: float = 100.0
    # iOS keeps advertising while a central is connected.
    advertise_while_connected: bool = True
    # ATT MTU the phone asks for right after a connection (iOS does); None: never asks.
    mtu: int | None = 517
    # How the user answers pairing dialogs: auto, manual (confirm_pairing) or reject.
    pairing: str = 'auto'
    # Advertising interval while the app is in the background (iOS: about 1 s).
    background_advertising_interval_ms: float = BACKGROUND_INTERVAL_MS
    # Seconds between resolvable private address changes (iOS: about 15 minutes);
    # None: only `rotate_address` changes it.
    address_rotation_s: float | None = None
    # The NavigationNotifier Server app is installed: false for a stock iPhone, which
    # does not advertise at all (an accessory is paired from Settings).
    server_app: bool = True
    # ATT MTU the phone asks an accessory for (links it made from Settings): iOS
    # asks 185 (293 on some models).
    accessory_mtu: int | None = 185
    # "Allow <accessory> to receive your notifications?" after Settings pairing:
    # allow (answered yes at once), ask (waits for `allow_notifications`), deny.
    notification_prompt: str = 'allow'
    # When ANCS and AMS appear in the GATT database: `always`, or `after_bonding`
    # (as iOS: published once a bond exists, announced with Service Changed).
    apple_services: str = 'always'


def _uuid128_le(text: str) -> bytes:
    return uuid.UUID(text).bytes[::-1]


def advertising_data() -> bytes:
    uuid_bytes = _uuid128_le(SERVICE_UUID)
    return bytes([2, 0x01, ADVERTISING_FLAGS]) + bytes([1 + len(uuid_bytes), 0x07]) + uuid_bytes


def scan_response_data(local_name: str) -> bytes:
    name = local_name.encode('utf-8')
    if len(name) <= 29:
        return bytes([1 + len(name), 0x09]) + name
    shortened = name[:29]
    return bytes([1 + len(shortened), 0x08]) + shortened


def address_text(address: hci.Address) -> str:
    return address.to_string(with_type_qualifier=False)


class Phone:
    def __init__(
        self,
        settings: PhoneSettings,
        identity: PhoneIdentity,
        link: SimulatedLink,
        emit: Emit,
        *,
        link_loss_delay: float | None = None,
        bond_file: str | None = None,
    ) -> None:
        self.settings = settings
        self.name = settings.name
        self.identity = identity
        owner = settings.name[:1].upper() + settings.name[1:]
        self.local_name = settings.local_name or f'iPhone ({owner})'
        self.server_name = settings.server_name or identity.server_name
        if not valid_name(self.server_name):
            raise PhoneError('server_name must be 1..32 bytes of UTF-8')
        if settings.paired_client != UNPAIRED and not valid_name(settings.paired_client):
            raise PhoneError('paired_client must be UNPAIRED or 1..32 bytes of UTF-8')
        self.link = link
        self._emit_raw = emit
        self.paired = PairedClientName(settings.paired_client)
        self.powered = False
        self.in_range = True
        self.connections: dict[int, object] = {}
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task] = set()
        self.bond_file = bond_file
        self.security = PhoneSecurity(lambda: self.device, self._emit, settings.pairing)
        if settings.apple_services not in ('always', 'after_bonding'):
            raise PhoneError('apple_services is always or after_bonding')
        try:
            accessory_file = (
                os.path.join(os.path.dirname(bond_file), f'accessories-{settings.name}.json') if bond_file else None
            )
            self.settings_bluetooth = SettingsBluetooth(self, self._emit, settings.notification_prompt, accessory_file)
        except ValueError as error:
            raise PhoneError(str(error)) from error
        self.apple_services_published = False
        # The NavigationNotifier Server app: 'foreground' or 'background'.
        self.app = 'foreground'
        self.address_rotation = AddressRotation(
            self.rotate_address, lambda: self.powered and not self.connections
        )

        self.controller = CorrectedController(
            f'phone-{self.name}',
            link,
            identity.identity_address,
            manufacturer=APPLE,
            rssi=settings.rssi,
            link_loss_delay=link_loss_delay,
            autonomous_data_length=251,
        )
        self.controller.lmp_version = BLUETOOTH_5_3
        self.controller.hci_version = BLUETOOTH_5_3
        # Off the air until powered on.
        link.remove_controller(self.controller)

        self.service = NavigationNotifierService(
            lambda: self.server_name, self.paired, self._on_gatt_read, self._on_gatt_write
        )
        self.clock = CurrentTimeService()
        # The Notification Provider and the Media Source behind ANCS and AMS
        # (created below, once the services have their handles).
        self.ancs = AncsService(lambda connection, value: self.notifications.on_control_point(connection, value))
        self.ams = AmsService(
            lambda connection, value: self.media.on_remote_command(connection, value),
            lambda connection, value: self.media.on_entity_update(connection, value),
            lambda connection, value: self.media.on_entity_attribute_write(connection, value),
            lambda connection: self.media.on_entity_attribute_read(connection),
        )
        self.device = self._make_device()
        apple_characteristics = {**self.ancs.by_name(), **self.ams.by_name()}
        link = GattLink(
            lambda: self.device,
            apple_characteristics,
            lambda: list(self.connections.values()),
            self._peer,
            self._emit,
            self._spawn,
        )
        self.notifications = NotificationProvider(link)
        self.media = MediaSource(link)
        self._apple_characteristics = apple_characteristics
        self._name_characteristics()
        if settings.address_rotation_s is not None:
            self.set_address_rotation(settings.address_rotation_s)

    def _make_device(self) -> Device:
        config = DeviceConfiguration()
        config.name = self.local_name
        config.gap_service_enabled = False
        config.irk = self.identity.irk
        config.address = resolvable_private_address(self.identity.irk)
        config.advertising_interval_min = self.settings.advertising_interval_ms
        config.advertising_interval_max = self.settings.advertising_interval_ms
        if self.bond_file:
            config.keystore = f'JsonKeyStore:{self.bond_file}'
        host = Host(self.controller, AsyncPipeSink(self.controller))
        device = Device(config=config, host=host)
        device.pairing_config_factory = self.security.pairing_config
        device.smp_session_proxy = IosSmpSession
        fail_indications_on_disconnection(device.gatt_server)
        judge_update_requests(device, self._on_parameters_request)
        device.add_service(GenericAccessService(self.local_name, appearance=APPEARANCE_PHONE))
        device.add_service(self.service)
        if self.settings.apple_services == 'always':
            self._add_apple_services(device)
        device.add_service(self.clock)
        require_encryption(device.gatt_server, [self.clock])
        gatt_policy.enforce(device.gatt_server, self.security.link_security())
        device.on('connection', self._on_connection)
        device.on('characteristic_subscription', self._on_subscription)
        device.on('advertisement', self.settings_bluetooth.on_advertisement)
        return device

    def _add_apple_services(self, device: Device) -> list:
        """Put ANCS and AMS into the GATT database with their security (encrypted
        link; ANCS writes also the user's "Allow notifications"), to be wrapped by
        gatt_policy with the rest. Returns the attributes added."""
        server = device.gatt_server
        before = len(server.attributes)
        device.add_service(self.ancs)
        device.add_service(self.ams)
        added = server.attributes[before:]
        require_encryption(server, [self.ancs, self.ams])
        ancs_writes = [
            attribute for attribute in added
            if self.ancs.handle <= attribute.handle <= self.ancs.end_group_handle
            and (attribute is self.ancs.control_point or attribute.type == gatt_policy.CCCD_UUID)
        ]
        self.settings_bluetooth.require_authorization(ancs_writes)
        self.apple_services_published = True
        return added

    def _name_characteristics(self) -> None:
        self._characteristic_names = {
            self.service.server_name_characteristic.handle: SERVER_NAME,
            self.service.paired_client_name_characteristic.handle: PAIRED_CLIENT_NAME,
            **{
                characteristic.handle: name
                for name, characteristic in self._apple_characteristics.items()
                if characteristic.handle
            },
        }

    async def publish_apple_services(self) -> None:
        """iOS publishes ANCS and AMS once a bond exists and tells connected clients
        with a Service Changed indication (Core spec Vol 3, Part G, 7.1)."""
        if self.apple_services_published:
            return
        added = self._add_apple_services(self.device)
        gatt_policy.protect(added, self.security.link_security())
        start, end = added[0].handle, added[-1].handle
        self._name_characteristics()
        changed = self.device.gatt_service.service_changed_characteristic
        value = struct.pack('<HH', start, end)
        peers = []
        for connection in list(self.connections.values()):
            cccd = self.device.gatt_server.subscribers.get(connection, {}).get(changed.handle)
            if not (cccd and len(cccd) == 2 and cccd[0] & 0x02):
                continue
            peers.append(self._peer(connection))
            self._spawn(self._indicate(connection, changed, value))
        self._emit('services_changed', start=start, end=end, peers=peers, services=['ancs', 'ams'])

    async def _indicate(self, connection, characteristic, value: bytes) -> None:
        try:
            await self.device.gatt_server.indicate_subscriber(connection, characteristic, value)
        except (ConnectionError, TimeoutError, asyncio.TimeoutError) as error:
            logger.debug('[%s] indication not confirmed: %r', self.name, error)

    # ------------------------------------------------------------------ events
    def _emit(self, event: str, **fields) -> None:
        self._emit_raw({'event': event, 'phone': self.name, **fields})

    def report(self, event: str, **fields) -> None:
        """Emit an event on this phone's behalf (scenario helpers use it)."""
        self._emit(event, **fields)

    def spawn(self, coroutine) -> None:
        """Run a coroutine in the background; its failure is reported as an event."""
        self._spawn(coroutine)

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)

        def done(finished: asyncio.Task) -> None:
            self._tasks.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                error = finished.exception()
                logger.error('[%s] background task failed: %r', self.name, error)
                self._emit('error', what='phone', detail=repr(error))

        task.add_done_callback(done)

    @staticmethod
    def _peer(connection) -> str:
        return address_text(connection.peer_address)

    def _value_fields(self, value: bytes) -> dict:
        try:
            text = value.decode('utf-8')
        except UnicodeDecodeError:
            text = None
        return {'value': text, 'value_hex': value.hex()}

    def _on_gatt_read(self, connection, characteristic: str, value: bytes) -> None:
        self._emit('gatt_read', characteristic=characteristic, peer=self._peer(connection), **self._value_fields(value))

    def _on_gatt_write(self, connection, characteristic: str, value: bytes, error: int | None) -> None:
        self._emit(
            'gatt_write',
            characteristic=characteristic,
            peer=self._peer(connection),
            result='ok' if error is None else f'0x{error:02X}',
            att_error=error,
            paired_client=self.paired.value,
            **self._value_fields(value),
        )

    def _on_subscription(self, bearer, characteristic, notify: bool, indicate: bool) -> None:
        connection = bearer.connection if att.is_enhanced_bearer(bearer) else bearer
        name = self._characteristic_names.get(characteristic.handle, str(characteristic.uuid))
        self._emit('subscribed', characteristic=name, peer=self._peer(connection), notify=notify, indicate=indicate)
        if name in ANCS_CHARACTERISTICS:
            self._spawn(self.notifications.on_subscription(connection, name, notify))
        elif name in AMS_CHARACTERISTICS:
            self._spawn(self.media.on_subscription(connection, name, notify))

    def _on_connection(self, connection) -> None:
        central = connection.role == hci.Role.CENTRAL
        self.connections[connection.handle] = connection
        self.security.attach(connection)
        self._emit(
            'connected',
            peer=self._peer(connection),
            address=address_text(connection.self_address),
            handle=connection.handle,
            role='central' if central else 'peripheral',
        )
        connection.on('disconnection', lambda reason: self._on_disconnection(connection, reason))
        connection.on('connection_encryption_change', lambda: self._on_encryption_change(connection))
        connection.on('pairing', lambda _keys: self._on_bonded())
        if central:
            # An accessory tapped in Settings (or reconnected by iOS).
            self.settings_bluetooth.attach(connection)
            if self.settings.accessory_mtu is not None:   # None: no Exchange MTU, ATT_MTU stays 23
                self._spawn(self._exchange_mtu(connection, self.settings.accessory_mtu))
            return
        if self.settings.advertise_while_connected:
            self._spawn(self._resume_advertising())
        if self.settings.mtu:
            self._spawn(self._exchange_mtu(connection, self.settings.mtu))

    def _on_parameters_request(self, connection, request, broken: list[str]) -> None:
        self._emit(
            'connection_parameters_request',
            peer=self._peer(connection),
            interval_min_ms=request.interval_min * 1.25,
            interval_max_ms=request.interval_max * 1.25,
            latency=request.latency,
            timeout_ms=request.timeout * 10,
            result='rejected' if broken else 'accepted',
            broken=broken,
        )

    def _on_bonded(self) -> None:
        if self.settings.apple_services == 'after_bonding':
            self._spawn(self.publish_apple_services())

    def _on_encryption_change(self, connection) -> None:
        if connection.encryption and connection.handle in self.connections:
            self._spawn(self.notifications.on_encrypted(connection))
            self._spawn(self.media.on_encrypted(connection))

    def _on_disconnection(self, connection, reason: int) -> None:
        self.connections.pop(connection.handle, None)
        self.notifications.on_disconnection(connection)
        self.media.on_disconnection(connection)
        self._emit('disconnected', peer=self._peer(connection), reason=reason)
        self._spawn(self._resume_advertising())

    async def _exchange_mtu(self, connection, mtu: int) -> None:
        """iOS's own Exchange MTU Request, on every link. Sent directly: Bumble's
        `request_mtu` reports only the resulting MTU and hides the peer's Server Rx
        MTU, which the `mtu` event carries as `peer_mtu`. A refusal (the peer has no
        ATT server) leaves iOS at the default MTU; an unanswered request ends the
        bearer and iOS drops the link."""
        client = connection.gatt_client
        try:
            response = await client.send_request(att.ATT_Exchange_MTU_Request(client_rx_mtu=mtu))
        except (TimeoutError, asyncio.TimeoutError) as error:
            self._emit('error', what='att_timeout', detail=f'MTU exchange unanswered: {error}')
            if connection.handle in self.connections:
                await connection.disconnect(REMOTE_USER_TERMINATED)
            return
        except Exception as error:  # noqa: BLE001 - disconnection while waiting
            logger.debug('[%s] MTU exchange ended: %r', self.name, error)
            return
        client.mtu_exchange_done = True
        if response.op_code == att.Opcode.ATT_ERROR_RESPONSE:
            self._emit('mtu', peer=self._peer(connection), mtu=23, att_error=response.error_code)
            return
        result = max(att.ATT_DEFAULT_MTU, min(mtu, response.server_rx_mtu))
        client.mtu = result
        # Bumble's client does not update the bearer when it initiated the exchange.
        connection.on_att_mtu_update(result)
        self._emit('mtu', peer=self._peer(connection), mtu=result, peer_mtu=response.server_rx_mtu, requested=mtu)

    # --------------------------------------------------------------- advertising
    @property
    def advertising(self) -> bool:
        return self.controller.le_legacy_advertiser.enabled

    async def _start_advertising(self) -> None:
        if not self.settings.server_app:
            return  # a stock iPhone: nothing advertises
        if self.app == 'background':
            data = background_advertising_data(ADVERTISING_FLAGS, [SERVICE_UUID])
            response = b''
            interval = self.settings.background_advertising_interval_ms
        else:
            data = advertising_data()
            response = scan_response_data(self.local_name)
            interval = self.settings.advertising_interval_ms
        await self.device.start_advertising(
            advertising_type=AdvertisingType.UNDIRECTED_CONNECTABLE_SCANNABLE,
            own_address_type=hci.OwnAddressType.RANDOM,
            auto_restart=False,
            advertising_data=data,
            scan_response_data=response,
            advertising_interval_min=interval,
            advertising_interval_max=interval,
        )

    async def _resume_advertising(self) -> None:
        async with self._lock:
            if not self.powered or self.advertising:
                return
            if self.connections and not self.settings.advertise_while_connected:
                return
            await self._start_advertising()

    # ------------------------------------------------------------------ commands
    async def power_on(self) -> None:
        async with self._lock:
            if self.powered:
                return
            if self.in_range and self.controller not in self.link.controllers:
                self.link.add_controller(self.controller)
            await self.device.power_on()
            await self.security.load_bonds()
            self.settings_bluetooth.load({name.split('/')[0] for name in self.security.bonds})
            self.powered = True
            await self._start_advertising()
            if self.security.bonds and self.settings.apple_services == 'after_bonding':
                await self.publish_apple_services()
            await self.settings_bluetooth.update_scanning()
        self._emit('powered', on=True, address=self.address)

    async def power_off(self) -> None:
        """Bluetooth off: connections end with Remote Device Terminated Connection
        due to Power Off, advertising stops, the radio goes quiet."""
        async with self._lock:
            if not self.powered:
                return
            self.powered = False
            for connection in list(self.connections.values()):
                try:
                    await connection.disconnect(POWER_OFF)
                except Exception as error:  # noqa: BLE001 - already gone
                    logger.debug('[%s] disconnect at power off: %r', self.name, error)
            if self.device.legacy_advertiser:
                await self.device.stop_advertising()
            await self.device.power_off()
            if self.controller in self.link.controllers:
                self.link.remove_controller(self.controller)
        self._emit('powered', on=False)

    async def go_out_of_range(self) -> None:
        """The link is lost (both sides see Connection Timeout after the supervision
        timeout) and nothing the phone transmits reaches the head unit any more."""
        for connection in list(self.controller.le_connections.values()):
            self.controller.lose_link(connection)
        self.in_range = False
        if self.controller in self.link.controllers:
            self.link.remove_controller(self.controller)
        self._emit('range', in_range=False)

    async def come_into_range(self) -> None:
        self.in_range = True
        if self.powered and self.controller not in self.link.controllers:
            self.link.add_controller(self.controller)
        self._emit('range', in_range=True)

    async def disconnect(self, reason: int = REMOTE_USER_TERMINATED) -> None:
        if not self.connections:
            raise PhoneError('not connected')
        for connection in list(self.connections.values()):
            await connection.disconnect(reason)

    async def unpair(self) -> None:
        """The user taps Unpair in the app."""
        self.paired.unpair()
        self._emit('paired_client_changed', value=UNPAIRED, by='unpair')
        await self._notify_paired()

    async def set_paired(self, value: str, notify: bool = False) -> None:
        if value != UNPAIRED and not valid_name(value):
            raise PhoneError('value must be UNPAIRED or 1..32 bytes of UTF-8')
        self.paired.value = value
        self._emit('paired_client_changed', value=value, by='set')
        if notify:
            await self._notify_paired()

    async def _notify_paired(self) -> None:
        characteristic = self.service.paired_client_name_characteristic
        value = self.paired.value.encode('utf-8')
        peers = []
        for bearer, cccds in self.device.gatt_server.subscribers.items():
            cccd = cccds.get(characteristic.handle)
            if cccd and len(cccd) == 2 and cccd[0] & 0x01:
                connection = bearer.connection if att.is_enhanced_bearer(bearer) else bearer
                peers.append(self._peer(connection))
        await self.device.notify_subscribers(characteristic, value)
        self._emit('notified', characteristic=PAIRED_CLIENT_NAME, peers=peers, **self._value_fields(value))

    async def rotate_address(self, replay: str | None = None) -> str:
        """A new resolvable private address, as iOS does every ~15 minutes. Only while
        not connected: the address of a live connection does not change. `replay`:
        take this address instead (another phone's, heard on the air): anyone can
        send from an iPhone's private address, it carries no secret."""
        async with self._lock:
            if self.connections:
                raise PhoneError('cannot rotate the address while connected')
            old = self.address
            was_advertising = self.powered and self.device.legacy_advertiser is not None
            if was_advertising:
                await self.device.stop_advertising()
            # The random address cannot change while scanning either.
            was_scanning = self.powered and await self.settings_bluetooth.pause_scanning()
            new_address = (
                resolvable_private_address(self.identity.irk)
                if replay is None
                else hci.Address(replay, hci.Address.RANDOM_DEVICE_ADDRESS)
            )
            if self.powered:
                await self.device.send_sync_command(hci.HCI_LE_Set_Random_Address_Command(random_address=new_address))
            self.device.random_address = new_address
            self.device.static_address = new_address
            if was_advertising:
                await self._start_advertising()
            if was_scanning:
                await self.settings_bluetooth.update_scanning()
        self._emit('address_rotated', old=old, new=self.address)
        return self.address

    async def set_app_state(self, app: str) -> None:
        """The user leaves the app (`background`) or opens it again (`foreground`):
        advertising goes on with what iOS advertises then; links stay up."""
        if app not in ('foreground', 'background'):
            raise PhoneError('the app is in the foreground or the background')
        async with self._lock:
            if app == self.app:
                return
            self.app = app
            if self.powered and self.advertising and self.device.legacy_advertiser is not None:
                await self.device.stop_advertising()
                await self._start_advertising()
        self._emit('app', state=app, address=self.address)

    def set_address_rotation(self, seconds: float | None) -> None:
        try:
            self.address_rotation.set_period(seconds)
        except ValueError as error:
            raise PhoneError(str(error)) from error

    # ------------------------------------------------------------------ security
    def type_passkey(self, digits) -> None:
        if not self.security.type_passkey(digits):
            raise PhoneError('no pairing is waiting for a passkey')

    def confirm_pairing(self, accept: bool) -> None:
        if not self.security.confirm(accept):
            raise PhoneError('no pairing dialog is open')

    def set_pairing_mode(self, mode: str) -> None:
        if mode not in ('auto', 'manual', 'reject'):
            raise PhoneError('pairing mode is auto, manual or reject')
        self.security.mode = mode

    async def forget_bond(self, peer: str | None = None) -> list[str]:
        """Forget This Device: the keys go; an accessory's link ends and it is no
        longer reconnected."""
        forgotten = await self.security.forget_bond(peer)
        for identity in forgotten:
            if identity in self.settings_bluetooth.bonded:
                await self.settings_bluetooth.forget(identity)
        return forgotten

    def request_security(self) -> None:
        if not self.connections:
            raise PhoneError('not connected')
        for connection in self.connections.values():
            self.security.request_security(connection)

    # ------------------------------------------------------ notifications (ANCS)
    async def post_notification(self, app: str, category='other', title: str = '', subtitle: str = '',
                                message: str = '', date=None, positive_action: str = '',
                                negative_action: str = '', silent: bool = False, important: bool = False,
                                app_name: str | None = None, on_action: str = 'remove') -> dict:
        """A notification appears on the phone. Returns it with its stable `id` and
        its `uid` in the running session (None without one)."""
        notification = await self.notifications.post(
            app, category, title, subtitle, message, date, positive_action, negative_action,
            silent, important, app_name, on_action,
        )
        return self.notifications.describe(notification)

    async def modify_notification(self, notification: int | None = None, *, uid: int | None = None, **changes) -> dict:
        """Change a notification (by `id`, or by its `uid` in a running session)."""
        try:
            found = self.notifications.resolve(notification, uid)
        except KeyError as error:
            raise PhoneError(str(error.args[0])) from error
        await self.notifications.modify(found, **changes)
        return self.notifications.describe(found)

    async def remove_notification(self, notification: int | None = None, *, uid: int | None = None) -> dict:
        try:
            found = self.notifications.resolve(notification, uid)
        except KeyError as error:
            raise PhoneError(str(error.args[0])) from error
        described = self.notifications.describe(found)
        await self.notifications.remove(found)
        return described

    def list_notifications(self) -> list[dict]:
        return self.notifications.list()

    async def set_sharing(self, on: bool) -> None:
        """The "Share System Notifications" switch of the head unit on this phone."""
        await self.notifications.set_sharing(bool(on))

    def drop_subscriptions(self, control_point: str = 'acknowledge', delay: float | None = None,
                           services=('ancs',)) -> list[str]:
        """The phone silently forgets the head unit's subscriptions (ANCS, and AMS
        if asked); returns the peers affected."""
        unknown = set(services) - {'ancs', 'ams'}
        if unknown:
            raise PhoneError(f'unknown services {sorted(unknown)}: ancs, ams')
        peers: list[str] = []
        if 'ancs' in services:
            peers += self.notifications.drop_subscriptions(control_point, delay)
        if 'ams' in services:
            peers += self.media.drop_subscriptions()
        peers = sorted(set(peers))
        self._emit('subscriptions_dropped', peers=peers, services=list(services), control_point=control_point, delay=delay)
        return peers

    # ------------------------------------------------------------- media (AMS)
    async def play_track(self, title: str, artist: str = '', album: str = '', duration: float = 0.0,
                         player: str | None = None, elapsed: float = 0.0, state='playing',
                         queue_index: int | None = None, queue_count: int | None = None) -> dict:
        return await self.media.play_track(title, artist, album, duration, player, elapsed, state, queue_index, queue_count)

    async def set_playback(self, state=None, elapsed: float | None = None, rate: float | None = None) -> dict:
        return await self.media.set_playback(state, elapsed, rate)

    async def set_volume(self, volume: float) -> dict:
        return await self.media.set_volume(volume)

    async def set_queue(self, index: int | None = None, count: int | None = None,
                        shuffle: int | None = None, repeat: int | None = None) -> dict:
        return await self.media.set_queue(index, count, shuffle, repeat)

    async def set_playlist(self, tracks: list, index: int = 0, player: str | None = None) -> dict:
        return await self.media.set_playlist([track_from(t) for t in tracks], index, player)

    async def set_supported_commands(self, commands: list | None) -> dict:
        return await self.media.set_supported_commands(commands)

    async def stop_player(self) -> dict:
        return await self.media.stop()

    # --------------------------------------------------------------------- state
    @property
    def address(self) -> str:
        return address_text(self.device.random_address)

    def state(self) -> dict:
        return {
            'phone': self.name,
            'local_name': self.local_name,
            'server_name': self.server_name,
            'paired_client': self.paired.value,
            'address': self.address,
            'identity_address': self.identity.identity_address,
            'connected': bool(self.connections),
            'peers': [self._peer(c) for c in self.connections.values()],
            'advertising': self.advertising,
            'powered': self.powered,
            'in_range': self.in_range,
            'bonds': sorted(name.split('/')[0] for name in self.security.bonds),
            'encrypted': any(bool(c.encryption) for c in self.connections.values()),
            'pairing': self.security.mode,
            'sharing': self.notifications.sharing,
            'notifications': len(self.notifications.notifications),
            'ancs_sessions': sorted(session.peer for session in self.notifications.sessions.values()),
            'player': self.media.player.name,
            'app': self.app,
            'address_rotation': self.address_rotation.period,
            'server_app': self.settings.server_app,
            'apple_services_published': self.apple_services_published,
            **self.settings_bluetooth.state(),
        }

    async def close(self) -> None:
        # Let running host commands finish: cancelling one mid-flight leaves Bumble's
        # host waiting for an answer it then cannot accept.
        self.powered = False
        self.address_rotation.stop()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        for task in list(self._tasks):
            task.cancel()
        if self.controller in self.link.controllers:
            self.link.remove_controller(self.controller)
