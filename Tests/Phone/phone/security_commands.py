"""Control-protocol commands for the security tests: what a curious or
hostile phone can do to the head unit.

- `discover_head_unit` (`phone`): the phone's GATT client walks the head unit's
  whole database: every primary service, every characteristic, and every
  attribute handle (Find Information over 0x0001..0xFFFF). Reply: `services`
  (`[{uuid, start, end, characteristics: [{uuid, handle, properties}]}]`),
  `attributes` (`[{handle, uuid}]`).
- `push_unsolicited` (`phone`, optional `title`, `message`, `uid`): the phone
  sends, on every link and whether or not anything is subscribed or
  encrypted, an ANCS Notification Source "added" for a Location
  notification, a Data Source response carrying its Title and Message, and
  an AMS Entity Update with a track title. Reply: `sent` (how many
  notifications went out).
"""

from __future__ import annotations

from bumble.device import Peer

from .device.ancs_protocol import encode_attribute, encode_notification_source

# ANCS: EventIDNotificationAdded, CategoryIDLocation; Data Source: CommandIDGetNotificationAttributes,
# AttributeIDTitle, AttributeIDMessage. AMS: EntityIDTrack, TrackAttributeIDTitle.
_ADDED, _LOCATION = 0, 11
_GET_NOTIFICATION_ATTRIBUTES, _TITLE, _MESSAGE = 0, 1, 3
_TRACK, _TRACK_TITLE = 2, 2


def _uuid(uuid) -> str:
    """`1800` for a 16-bit UUID, the 32 hex digits of a 128-bit one."""
    return uuid.to_hex_str()


def register(protocol) -> None:
    simulator = protocol.simulator

    def phone_of(arguments: dict):
        name = arguments.get('phone', arguments.get('name'))
        if not isinstance(name, str) or not name:
            raise ValueError('missing "phone"')
        return simulator.phone(name)

    async def discover_head_unit(arguments: dict) -> dict:
        phone = phone_of(arguments)
        connections = list(phone.connections.values())
        if not connections:
            raise ValueError('not connected')
        peer = Peer(connections[0])
        services = []
        for service in await peer.discover_services():
            characteristics = await service.discover_characteristics()
            services.append({
                'uuid': _uuid(service.uuid),
                'start': service.handle,
                'end': service.end_group_handle,
                'characteristics': [
                    {'uuid': _uuid(c.uuid), 'handle': c.handle, 'properties': int(c.properties)}
                    for c in characteristics
                ],
            })
        attributes = [{'handle': a.handle, 'uuid': _uuid(a.type)} for a in await peer.gatt_client.discover_attributes()]
        return {'services': services, 'attributes': attributes}

    async def push_unsolicited(arguments: dict) -> dict:
        phone = phone_of(arguments)
        uid = int(arguments.get('uid', 0x5EC0))
        title = str(arguments.get('title', 'In 400 m')).encode()
        message = str(arguments.get('message', 'Turn right')).encode()
        server = phone.device.gatt_server
        sent = 0
        for connection in list(phone.connections.values()):
            pushes = [
                (phone.ancs.notification_source, encode_notification_source(_ADDED, 0, _LOCATION, 1, uid)),
                (phone.ancs.data_source, bytes([_GET_NOTIFICATION_ATTRIBUTES]) + uid.to_bytes(4, 'little')
                 + encode_attribute(_TITLE, title) + encode_attribute(_MESSAGE, message)),
                (phone.ams.entity_update, bytes([_TRACK, _TRACK_TITLE, 0]) + title),
            ]
            for characteristic, value in pushes:
                await server.notify_subscriber(connection, characteristic, value, force=True)
                sent += 1
        phone.report('unsolicited', sent=sent, uid=uid)
        return {'sent': sent}

    protocol.register('discover_head_unit', discover_head_unit)
    protocol.register('push_unsolicited', push_unsolicited)
