"""Connection parameters an accessory may ask an iPhone for.

When the iPhone is the central (Settings pairing), the accessory asks for new
connection parameters with an L2CAP Connection Parameter Update Request. iOS takes
them only within Apple's Accessory Design Guidelines and rejects the rest; Bumble
as central accepts anything. The rules, in the guidelines' units turned into the
request's (interval 1.25 ms, timeout 10 ms):

- Interval Min ≥ 15 ms, and a multiple of 15 ms;
- Interval Max ≥ Interval Min + 15 ms, or both 15 ms;
- Peripheral Latency ≤ 30;
- 2 s ≤ Supervision Timeout ≤ 6 s;
- Interval Max × (Latency + 1) ≤ 2 s;
- Interval Max × (Latency + 1) × 3 < Supervision Timeout.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bumble import hci, l2cap

logger = logging.getLogger(__name__)

INTERVAL_UNIT_MS = 1.25
TIMEOUT_UNIT_MS = 10


def broken_rules(interval_min: int, interval_max: int, latency: int, timeout: int) -> list[str]:
    """The guideline rules a request breaks (empty: iOS accepts it)."""
    minimum = interval_min * INTERVAL_UNIT_MS
    maximum = interval_max * INTERVAL_UNIT_MS
    timeout_ms = timeout * TIMEOUT_UNIT_MS
    broken = []
    if minimum < 15 or minimum % 15:
        broken.append('interval_min')
    if not (maximum >= minimum + 15 or minimum == maximum == 15):
        broken.append('interval_max')
    if latency > 30:
        broken.append('latency')
    if not 2000 <= timeout_ms <= 6000:
        broken.append('timeout')
    if maximum * (latency + 1) > 2000:
        broken.append('interval_max_with_latency')
    if not maximum * (latency + 1) * 3 < timeout_ms:
        broken.append('timeout_margin')
    return broken


def judge_update_requests(device, report: Callable[..., None]) -> None:
    """Answer Connection Parameter Update Requests on links where the phone is the
    central as iOS does; `report(connection, request, broken)` hears every one."""
    manager = device.l2cap_channel_manager
    accept = manager.on_l2cap_connection_parameter_update_request

    def on_request(connection, cid: int, request) -> None:
        if connection.role != hci.Role.CENTRAL:
            accept(connection, cid, request)  # Bumble rejects it there, as iOS would
            return
        broken = broken_rules(request.interval_min, request.interval_max, request.latency, request.timeout)
        report(connection, request, broken)
        if not broken:
            accept(connection, cid, request)
            return
        manager.send_control_frame(
            connection,
            cid,
            l2cap.L2CAP_Connection_Parameter_Update_Response(
                identifier=request.identifier,
                result=l2cap.L2CAP_CONNECTION_PARAMETERS_REJECTED_RESULT,
            ),
        )

    manager.on_l2cap_connection_parameter_update_request = on_request
