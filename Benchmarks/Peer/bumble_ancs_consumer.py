"""The peer consumer of the side-by-side benchmark: Bumble's own ANCS client
(`bumble.profiles.ancs.AncsClient`, a Python host stack) in place of the head
unit, over the same H4/TCP transport to the simulated phone's world.

It connects to the phone, pairs (Just Works, Secure Connections, bonded: the
phone serves ANCS only on such a link), subscribes, and for every Added
notification asks what the head unit asks: the AppIdentifier first, the app's
display name once per app, then Title (64), Subtitle (64), Message (256) and
Date. One JSON line per fetched notification on stdout, as the head unit
writes one event per notification.

    python bumble_ancs_consumer.py --hci tcp-client:127.0.0.1:PORT --phone ADDRESS
"""
import argparse
import asyncio
import json
import sys

from bumble import hci
from bumble.device import Device, Peer
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.profiles.ancs import AncsClient, AppAttributeId, EventFlags, EventId, NotificationAttributeId
from bumble.transport import open_transport

TEXT = [(NotificationAttributeId.TITLE, 64), (NotificationAttributeId.SUBTITLE, 64),
        (NotificationAttributeId.MESSAGE, 256), NotificationAttributeId.DATE]


def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hci", required=True)
    parser.add_argument("--phone", required=True, help="the phone's current address")
    args = parser.parse_args()

    transport = await open_transport(args.hci)
    device = Device.with_hci("bumble-ancs", hci.Address("C0:98:76:54:32:10"), transport.source, transport.sink)
    device.pairing_config_factory = lambda _connection: PairingConfig(
        sc=True, mitm=False, bonding=True,
        delegate=PairingDelegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT),
        identity_address_type=PairingConfig.AddressType.RANDOM)
    await device.power_on()
    connection = await device.connect(args.phone, own_address_type=hci.OwnAddressType.RANDOM, timeout=10)
    await connection.pair()
    peer = Peer(connection)
    client = await AncsClient.for_peer(peer)
    if client is None:
        say(event="error", detail="no ANCS")
        return 1

    names = {}
    queue: asyncio.Queue = asyncio.Queue()
    client.on(AncsClient.EVENT_NOTIFICATION, queue.put_nowait)
    await client.start()
    say(event="started")
    fetched = 0
    while True:
        notification = await queue.get()
        if notification.event_id != EventId.NOTIFICATION_ADDED:
            continue
        uid = notification.notification_uid
        try:
            (app,) = await client.get_notification_attributes(uid, [NotificationAttributeId.APP_IDENTIFIER])
            if app.value not in names:
                (name,) = await client.get_app_attributes(app.value, [AppAttributeId.DISPLAY_NAME])
                names[app.value] = name.value
            wanted = list(TEXT)
            if notification.event_flags & EventFlags.POSITIVE_ACTION:
                wanted.append(NotificationAttributeId.POSITIVE_ACTION_LABEL)
            if notification.event_flags & EventFlags.NEGATIVE_ACTION:
                wanted.append(NotificationAttributeId.NEGATIVE_ACTION_LABEL)
            attributes = await client.get_notification_attributes(uid, wanted)
        except Exception as error:  # an answer that never came or an ATT error: counted as not fetched
            say(event="failed", uid=uid, detail=str(error))
            continue
        fetched += 1
        text = {a.attribute_id.name.lower(): str(a.value) for a in attributes}
        say(event="notification", uid=uid, app=app.value, title=text.get("title"), message=text.get("message"),
            fetched=fetched)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()) or 0)
