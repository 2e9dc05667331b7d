"""Fault injection: what goes wrong in a car, on command (README.md, "Faults").

Each fault is a control-protocol command; each reports itself with a `fault` event
(`fault`: the name, plus what it did) when it strikes. They are one-shot: the
simulation is healthy again afterwards, so a test can watch the head unit recover.

- hardware_error: the head unit's controller reports HCI Hardware Error;
- hci_unplug: the H4 transport goes away (TCP peer gone, UART unplugged) and comes
  back after a while;
- lose_link_mid_response: the phone goes out of range after sending part of a
  fragmented Data Source response;
- lose_link_on_smp: the phone goes out of range when a given SMP PDU from the head
  unit arrives (in the middle of pairing);
- stall_att: the phone's ATT server stops answering requests on its current links
  (the client's ATT transaction times out);
- short_encryption_key: the head unit's controller reports a short encryption key
  (Read Encryption Key Size), as one talked down by a KNOB attack would;
- stop_notification_source: the phone's ANCS Notification Source pushes stop on its
  current sessions while the Control Point keeps answering, until the client writes
  the Notification Source CCCD again;
- flood_advertising: a nearby device floods the head unit's scanner with
  advertising reports, malformed ones included.
"""

from __future__ import annotations

import asyncio
import logging
import random
import struct

from bumble import att, hci

from .controller.host_interface import event_packet
from .device.ancs_protocol import EVENT_NAMES
from .device.apple_services import DATA_SOURCE, NOTIFICATION_SOURCE
from .device.encoding import fragments
from .device.phone import Phone

logger = logging.getLogger(__name__)

EVENT_HARDWARE_ERROR = 0x10
EVENT_LE_META = 0x3E
SUBEVENT_LE_ADVERTISING_REPORT = 0x02

L2CAP_SMP_CID = 0x0006

# SMP codes (Core spec Vol 3, Part H, 3.3) by the names tests use.
SMP_CODES = {
    'pairing_request': 0x01,
    'pairing_response': 0x02,
    'pairing_confirm': 0x03,
    'pairing_random': 0x04,
    'pairing_failed': 0x05,
    'pairing_public_key': 0x0C,
    'pairing_dhkey_check': 0x0D,
}

NAVIGATION_NOTIFIER_SERVICE_LE = bytes.fromhex('1E54FB973D7DE797CE4BA1A8452B31AB')


class FaultError(ValueError):
    pass


def _number(arguments: dict, key: str, default, low, high):
    value = arguments.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise FaultError(f'"{key}" is a number in {low}..{high}')
    return value


# ---------------------------------------------------------------- advertising flood
def _report(event_type: int, address_type: int, address: bytes, data: bytes, rssi: int) -> bytes:
    return bytes([event_type, address_type]) + address + bytes([len(data)]) + data + struct.pack('<b', rssi)


def _random_address(rng: random.Random) -> tuple[int, bytes]:
    """A random device address of any sub-type, or now and then a public one."""
    address = bytearray(rng.randbytes(6))
    if rng.random() < 0.1:
        return 0x00, bytes(address)
    address[5] = (address[5] & 0x3F) | rng.choice((0x00, 0x40, 0xC0))  # NRPA, RPA, static
    return 0x01, bytes(address)


def _well_formed_data(rng: random.Random) -> bytes:
    """Flags, a name, sometimes the NavigationNotifier service UUID (a fake phone)."""
    name = ('Beacon-%04X' % rng.randrange(0x10000)).encode()
    data = bytes([2, 0x01, 0x06]) + bytes([1 + len(name), 0x09]) + name
    if rng.random() < 0.2:
        data += bytes([17, 0x07]) + NAVIGATION_NOTIFIER_SERVICE_LE
    return data[:31]


def _malformed_data(rng: random.Random) -> bytes:
    """AD structures that lie about their length, are empty, or are cut."""
    kind = rng.randrange(6)
    if kind == 0:
        return bytes([30, 0x09]) + b'short'  # length past the end
    if kind == 1:
        return bytes([0, 0, 0, 0])  # zero-length structures (padding)
    if kind == 2:
        return bytes([1])  # a type byte missing
    if kind == 3:
        return bytes([17, 0x07]) + NAVIGATION_NOTIFIER_SERVICE_LE[:7]  # UUID list cut
    if kind == 4:
        return bytes([3, 0x03, 0x0F])  # 16-bit UUID list of an odd length
    return rng.randbytes(rng.randrange(1, 32))


def _malformed_event(rng: random.Random) -> bytes:
    """LE Advertising Report events whose own framing is wrong."""
    address_type, address = _random_address(rng)
    kind = rng.randrange(4)
    if kind == 0:  # claims three reports, carries one
        body = bytes([SUBEVENT_LE_ADVERTISING_REPORT, 3]) + _report(0, address_type, address, b'', -70)
    elif kind == 1:  # data length beyond the event
        body = bytes([SUBEVENT_LE_ADVERTISING_REPORT, 1, 0, address_type]) + address + bytes([200]) + b'\x02\x01'
    elif kind == 2:  # reserved event type and address type
        body = bytes([SUBEVENT_LE_ADVERTISING_REPORT, 1]) + _report(0x07, 0x7F, address, b'', -70)
    else:  # nothing but the subevent code
        body = bytes([SUBEVENT_LE_ADVERTISING_REPORT])
    return event_packet(EVENT_LE_META, body)


def flood_events(rng: random.Random, malformed: float) -> tuple[bytes, int]:
    """One LE Advertising Report event of 1..4 reports; (H4 packet, reports)."""
    if rng.random() < malformed / 2:
        return _malformed_event(rng), 1
    reports = []
    size = 2
    for _ in range(rng.randint(1, 4)):
        address_type, address = _random_address(rng)
        data = _malformed_data(rng) if rng.random() < malformed else _well_formed_data(rng)
        event_type = rng.choice((0x00, 0x00, 0x02, 0x03, 0x04))
        report = _report(event_type, address_type, address, data, rng.randrange(-100, -30))
        if size + len(report) > 255:
            break
        reports.append(report)
        size += len(report)
    body = bytes([SUBEVENT_LE_ADVERTISING_REPORT, len(reports)]) + b''.join(reports)
    return event_packet(EVENT_LE_META, body), len(reports)


class AdvertisingFlood:
    """Reports from a crowd of (fake) advertisers, as the head unit's controller
    would pass them up while it scans. They enter where the controller hands events
    to the host (the event masks apply), not through the simulated radio: thousands
    per second, and framing the radio model could never carry."""

    def __init__(self, simulator, rate: int, seconds: float, malformed: float, seed: int, while_scanning: bool = True) -> None:
        self.simulator = simulator
        self.while_scanning = while_scanning
        self.rate = rate
        self.seconds = seconds
        self.malformed = malformed
        self.rng = random.Random(seed)
        self.reports = 0
        self.events = 0
        self.task: asyncio.Task | None = None

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        tick = 0.01
        start = last = loop.time()
        owed = 0.0
        try:
            while last - start < self.seconds:
                now = loop.time()
                owed += self.rate * (now - last)
                last = now
                controller = self.simulator.controller
                interface = self.simulator.host_interface
                while owed >= 1:
                    packet, count = flood_events(self.rng, self.malformed)
                    owed -= count
                    # A controller reports only while it scans (unless told to
                    # model one that keeps reporting whatever the host asked).
                    if (controller.le_scan_enable or not self.while_scanning) and interface.attached:
                        interface._event_to_host(packet)
                        self.reports += count
                        self.events += 1
                await asyncio.sleep(tick)
        finally:
            self.simulator.emit(
                {'event': 'fault', 'fault': 'flood_advertising', 'state': 'ended', 'reports': self.reports, 'events': self.events}
            )


# ---------------------------------------------------------------------- the faults
def lose_link_mid_response(phone: Phone, after_fragments: int, emit) -> None:
    """The next Data Source response longer than `after_fragments` notifications
    goes out in part: after that many the phone is out of range."""
    provider = phone.notifications
    original = provider._send_response

    async def send_response(connection, fields: dict, response: bytes) -> None:
        link = provider.link
        parts = fragments(response, link.mtu(connection) - 3)
        if len(parts) <= after_fragments or not link.is_subscribed(connection, DATA_SOURCE):
            await original(connection, fields, response)
            return
        del provider._send_response
        for part in parts[:after_fragments]:
            await link.notify(connection, DATA_SOURCE, part)
        # Let the fragments reach the air before the radio goes quiet.
        await asyncio.sleep(0.05)
        await phone.go_out_of_range()
        emit('lose_link_mid_response', fragments=after_fragments, of=len(parts), uid=fields.get('uid'))

    provider._send_response = send_response


def lose_link_on_smp(phone: Phone, code: int, emit) -> None:
    """When the head unit's SMP PDU `code` arrives, the phone is out of range before
    it is processed."""
    controller = phone.controller
    original = controller.on_link_acl_data

    def on_link_acl_data(sender_address, transport, data: bytes) -> None:
        if len(data) >= 5 and struct.unpack_from('<H', data, 2)[0] == L2CAP_SMP_CID and data[4] == code:
            del controller.on_link_acl_data
            asyncio.get_running_loop().create_task(phone.go_out_of_range())
            emit('lose_link_on_smp', code=code)
            return
        original(sender_address, transport, data)

    controller.on_link_acl_data = on_link_acl_data


def stall_att(phone: Phone, emit) -> list[str]:
    """Requests from the current links are never answered (commands and
    confirmations still pass); a new link is served normally."""
    server = phone.device.gatt_server
    stalled = set(phone.connections.values())
    if not stalled:
        raise FaultError('the phone has no link')
    original = server.on_gatt_pdu

    def on_gatt_pdu(connection, pdu) -> None:
        if connection in stalled and pdu.op_code in att.ATT_REQUESTS:
            logger.info('[%s] ATT %s left unanswered', phone.name, pdu.name)
            emit('stall_att', state='ignored', request=pdu.name)
            return
        original(connection, pdu)

    server.on_gatt_pdu = on_gatt_pdu
    return [phone._peer(connection) for connection in stalled]


def short_encryption_key(controller, key_size: int, times: int, emit) -> None:
    """The next `times` successful Read Encryption Key Size commands of the head
    unit's controller report `key_size` octets instead of 16: what a host sees
    after a KNOB attack talked the key down (the encryption itself still works)."""
    original = controller.on_hci_read_encryption_key_size_command
    left = [times]

    def reply(command):
        result = original(command)
        if result.status != hci.HCI_ErrorCode.SUCCESS:
            return result
        left[0] -= 1
        if left[0] <= 0:
            del controller.on_hci_read_encryption_key_size_command
        emit('short_encryption_key', key_size=key_size, handle=command.connection_handle, left=left[0])
        return hci.HCI_Read_Encryption_Key_Size_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, connection_handle=command.connection_handle, key_size=key_size)

    controller.on_hci_read_encryption_key_size_command = reply


def stop_notification_source(phone: Phone, emit) -> list[str]:
    """What iOS has been seen to do after airplane-mode toggles and time-zone
    changes: the ANCS sessions stay, the Control Point answers as ever (the
    liveness probe gets its 0xA2, real UIDs their attributes), but nothing more
    is pushed on the Notification Source. Writing that CCCD again (off, or on)
    ends it for the link; the subscription that follows starts a new session
    with everything as PreExisting."""
    provider = phone.notifications
    stopped = set(provider.sessions)
    if not stopped:
        raise FaultError('the phone has no ANCS session')
    send_source = provider._send_source
    on_subscription = provider.on_subscription

    def restore_when_done() -> None:
        if not stopped and provider.__dict__.get('_send_source') is withheld:
            del provider._send_source
            del provider.on_subscription

    async def withheld(session, event_id: int, notification, pre_existing: bool = False) -> None:
        if session.connection not in stopped:
            await send_source(session, event_id, notification, pre_existing)
            return
        logger.info('[%s] Notification Source %s withheld', phone.name, EVENT_NAMES.get(event_id, event_id))
        emit('stop_notification_source', state='withheld', peer=session.peer, event_name=EVENT_NAMES.get(event_id),
             uid=session.uid_of.get(notification.id), id=notification.id)

    async def recovering(connection, name: str, enabled: bool) -> None:
        if name == NOTIFICATION_SOURCE and connection in stopped:
            stopped.discard(connection)
            emit('stop_notification_source', state='recovered', peer=provider.link.peer(connection), enabled=enabled)
            restore_when_done()
        await on_subscription(connection, name, enabled)

    provider._send_source = withheld
    provider.on_subscription = recovering
    return [provider.link.peer(connection) for connection in stopped]



def register(protocol) -> None:
    """Add the fault commands to a ControlProtocol."""
    simulator = protocol.simulator
    floods: list[AdvertisingFlood] = []

    def emit(fault: str, **fields) -> None:
        simulator.emit({'event': 'fault', 'fault': fault, **fields})

    def phone_of(arguments: dict) -> Phone:
        name = arguments.get('phone', arguments.get('name'))
        if not isinstance(name, str) or not name:
            raise FaultError('missing "phone"')
        return simulator.phone(name)

    async def hardware_error(arguments: dict) -> dict:
        code = int(_number(arguments, 'code', 0x01, 0, 0xFF))
        interface = simulator.host_interface
        if interface is None or not interface.attached:
            raise FaultError('no head unit is connected')
        interface._event_to_host(event_packet(EVENT_HARDWARE_ERROR, bytes([code])))
        emit('hardware_error', code=code)
        return {'code': code}

    async def hci_unplug(arguments: dict) -> dict:
        seconds = _number(arguments, 'seconds', 1.0, 0, 60)
        if simulator.server is None:
            raise FaultError('simulator not started')
        emit('hci_unplug', state='unplugged', seconds=seconds)

        async def plug_back() -> None:
            await simulator.server.unplug(seconds)
            emit('hci_unplug', state='plugged', seconds=seconds)

        asyncio.get_running_loop().create_task(plug_back())
        return {'seconds': seconds, 'port': simulator.hci_port}

    async def link_mid_response(arguments: dict) -> dict:
        phone = phone_of(arguments)
        after = int(_number(arguments, 'after_fragments', 1, 1, 100))
        lose_link_mid_response(phone, after, lambda fault, **fields: emit(fault, phone=phone.name, **fields))
        return {'armed': True, 'after_fragments': after}

    async def link_on_smp(arguments: dict) -> dict:
        phone = phone_of(arguments)
        code = arguments.get('code', 'pairing_public_key')
        code = SMP_CODES.get(code, code) if isinstance(code, str) else code
        if not isinstance(code, int) or not 0 < code < 0x10:
            raise FaultError(f'"code" is an SMP code or one of {", ".join(SMP_CODES)}')
        lose_link_on_smp(phone, code, lambda fault, **fields: emit(fault, phone=phone.name, **fields))
        return {'armed': True, 'code': code}

    async def stall(arguments: dict) -> dict:
        phone = phone_of(arguments)
        peers = stall_att(phone, lambda fault, **fields: emit(fault, phone=phone.name, **fields))
        emit('stall_att', phone=phone.name, state='stalled', peers=peers)
        return {'peers': peers}

    async def short_key(arguments: dict) -> dict:
        key_size = int(_number(arguments, 'key_size', 7, 1, 16))
        times = int(_number(arguments, 'times', 1, 1, 100))
        if simulator.controller is None:
            raise FaultError('simulator not started')
        short_encryption_key(simulator.controller, key_size, times, emit)
        return {'armed': True, 'key_size': key_size, 'times': times}

    async def stop_source(arguments: dict) -> dict:
        phone = phone_of(arguments)
        peers = stop_notification_source(phone, lambda fault, **fields: emit(fault, phone=phone.name, **fields))
        emit('stop_notification_source', phone=phone.name, state='stopped', peers=peers)
        return {'peers': peers}

    async def flood(arguments: dict) -> dict:
        rate = int(_number(arguments, 'rate', 2000, 1, 20000))
        seconds = _number(arguments, 'seconds', 10.0, 0.1, 600)
        malformed = _number(arguments, 'malformed', 0.2, 0.0, 1.0)
        seed = int(_number(arguments, 'seed', 1, 0, 2**31))
        while_scanning = arguments.get('while_scanning', True)
        if not isinstance(while_scanning, bool):
            raise FaultError('"while_scanning" is true or false')
        if simulator.controller is None:
            raise FaultError('simulator not started')
        job = AdvertisingFlood(simulator, rate, seconds, malformed, seed, while_scanning)
        job.task = asyncio.get_running_loop().create_task(job.run())
        floods.append(job)
        job.task.add_done_callback(lambda _task: floods.remove(job))
        emit('flood_advertising', state='started', rate=rate, seconds=seconds, malformed=malformed)
        return {'started': True}

    async def stop_flood(_arguments: dict) -> dict:
        stopped = 0
        for job in list(floods):
            if job.task is not None:
                job.task.cancel()
                stopped += 1
        return {'stopped': stopped}

    for name, handler in (
        ('hardware_error', hardware_error),
        ('hci_unplug', hci_unplug),
        ('lose_link_mid_response', link_mid_response),
        ('lose_link_on_smp', link_on_smp),
        ('stall_att', stall),
        ('stop_notification_source', stop_source),
        ('short_encryption_key', short_key),
        ('flood_advertising', flood),
        ('stop_flood', stop_flood),
    ):
        protocol.register(name, handler)
