"""Corrections to Bumble's host for a phone that is the central (Settings pairing).

Bumble 0.0.236 as the initiator behaves unlike iOS in four ways that matter when an
accessory (the head unit as peripheral) is tested against it; each function below
corrects one and says which:

- `IosSmpSession`: as initiator Bumble never sets the CT2 bit in AuthReq (iOS sets
  it in both roles, Core spec Vol 3, Part H, 3.5.1).
- `fail_indications_on_disconnection`: a GATT server indication waits up to 30 s
  for its confirmation after the link has dropped, and whoever sent it stalls that
  long (a Service Changed for the next link waits behind it).
- `answer_security_requests`: a received Security Request is only surfaced as an
  event; iOS answers it: encrypt with the bond's key if bonded, pair if not.
- `connect_advertiser`: `Device.connect()` to an identity address it holds an IRK
  for first looks for it with a scan of its own (beside the one already running,
  and with no time limit: an accessory that is away keeps it waiting for ever);
  connect to the address the accessory was just heard advertising with instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bumble import hci, smp

logger = logging.getLogger(__name__)


class IosSmpSession(smp.Session):
    """An SMP session that offers CT2, as iOS does (initiator and responder).

    As responder Bumble keeps CT2 only when the initiator offered it too, so the
    same class serves both roles."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.ct2 = True


def fail_indications_on_disconnection(server) -> None:
    """End an indication's wait for its confirmation when its link drops (Bumble
    forgets the pending confirmation but leaves the sender waiting 30 s)."""
    original = server.on_disconnection

    def on_disconnection(bearer) -> None:
        pending = server.pending_confirmations.get(bearer)
        if pending is not None and not pending.done():
            pending.set_exception(ConnectionError('link lost before the confirmation'))
        original(bearer)

    server.on_disconnection = on_disconnection


def security_request_answer(encrypted: bool, securing: bool, bonded: bool) -> str:
    """What iOS does with a Security Request: nothing new while the link is
    encrypted or pairing/encryption is under way (that answers it), otherwise
    encryption with the bond's key if bonded, pairing if not."""
    if encrypted or securing:
        return 'ignored'
    return 'encrypt' if bonded else 'pair'


def answer_security_requests(
    device,
    connection,
    bonded: Callable[[object], bool],
    secure: Callable[[object], Awaitable[None]],
    report: Callable[[str], None],
) -> None:
    """Answer every SMP Security Request on `connection` (Bumble only emits an
    event). `secure(connection)` pairs or encrypts as the bond says; `report`
    is told the answer (`encrypt`, `pair` or `ignored`)."""

    def on_security_request(_auth_req) -> None:
        answer = security_request_answer(
            bool(connection.encryption),
            connection.handle in device.smp_manager.sessions,
            bonded(connection),
        )
        report(answer)
        if answer != 'ignored':
            asyncio.get_running_loop().create_task(secure(connection))

    connection.on('security_request', on_security_request)


async def connect_advertiser(device, advertised_address: hci.Address, timeout: float = 5.0):
    """Connect to the address an accessory was seen advertising with.

    Bumble's `connect()` given an address it holds an IRK for (an accessory that
    advertises with its identity address) scans for a matching address itself,
    beside the scan already running and without the timeout. The caller has just seen the
    accessory advertise (and resolved it if it uses an RPA), so that lookup is
    skipped: the flag that tells Bumble a controller resolves addresses is set for
    the duration of the connection request only. Bumble still resolves the
    connection's peer address to the identity from its host-side resolver."""
    offload = device.address_resolution_offload
    device.address_resolution_offload = True
    try:
        return await device.connect(
            advertised_address,
            own_address_type=hci.OwnAddressType.RANDOM,
            timeout=timeout,
        )
    finally:
        device.address_resolution_offload = offload
