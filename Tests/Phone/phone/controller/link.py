"""The simulated radio: Bumble's LocalLink with connection-based routing.

Bumble's LocalLink delivers ACL data by the *current* random address of the sending
controller. A device that changes its random address while connected (or a central
that connects with its public address while a random address is also set) then
loses its own link. On air a connection is identified by its access address, fixed
when the connection is made: here that is the pair of addresses the two
controllers recorded in their Connection objects, and data is routed by that pair.
"""

from __future__ import annotations

import asyncio
import logging

from bumble import core, hci, ll
from bumble.link import LocalLink

logger = logging.getLogger(__name__)


class SimulatedLink(LocalLink):
    # ------------------------------------------------------------ connection lookup
    def peer_connection(self, sender, connection):
        """The (controller, Connection) at the other end of `connection`."""
        for controller in self.controllers:
            if controller is sender:
                continue
            other = controller.le_connections.get(connection.self_address)
            if other is not None and other.self_address == connection.peer_address:
                return controller, other
        return None

    def legacy_advertiser(self, address: hci.Address, data: bytes | None = None):
        """The (controller, advertiser) currently sending legacy PDUs with `address`:
        its LegacyAdvertiser, or an advertising set that uses legacy PDUs (both have
        `advertising_type` and `scan_response_data`). Several sets may share an
        address: given the advertising `data` just heard, the set that sent it."""
        if data is not None:
            for controller in self.controllers:
                for advertising_set in controller.advertising_sets.values():
                    if (
                        advertising_set.enabled
                        and getattr(advertising_set, 'uses_legacy_pdus', False)
                        and advertising_set.address == address
                        and bytes(advertising_set.data) == bytes(data)
                    ):
                        return controller, advertising_set
        for controller in self.controllers:
            advertiser = controller.le_legacy_advertiser
            if advertiser.enabled and advertiser.address == address:
                return controller, advertiser
            for advertising_set in controller.advertising_sets.values():
                if (
                    advertising_set.enabled
                    and getattr(advertising_set, 'uses_legacy_pdus', False)
                    and advertising_set.address == address
                ):
                    return controller, advertising_set
        return None

    # --------------------------------------------------------------------- routing
    # A controller removed from the link (a phone out of range or powered off) keeps
    # its `link` reference: whatever it still transmits must reach nobody.
    def send_advertising_pdu(self, sender_controller, packet):
        if sender_controller in self.controllers:
            super().send_advertising_pdu(sender_controller, packet)

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if sender_controller not in self.controllers:
            return
        if transport != core.PhysicalTransport.LE:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        connection = sender_controller.le_connections.get(destination_address)
        found = self.peer_connection(sender_controller, connection) if connection else None
        if found is None:
            logger.debug('ACL data to %s: no connection on the link, lost', destination_address)
            return
        receiver, _ = found
        source_address = connection.self_address
        asyncio.get_running_loop().call_soon(
            receiver.on_link_acl_data, source_address, transport, data
        )

    def send_ll_control_pdu(self, sender_address, receiver_address, packet: ll.ControlPdu):
        if not any(
            connection.self_address == sender_address
            for controller in self.controllers
            for connection in controller.le_connections.values()
        ):
            return  # the sender is off the link
        for controller in self.controllers:
            connection = controller.le_connections.get(sender_address)
            if connection is not None and connection.self_address == receiver_address:
                asyncio.get_running_loop().call_soon(
                    controller.on_ll_control_pdu, sender_address, packet
                )
                return
        logger.debug('LL control PDU to %s: no connection on the link, lost', receiver_address)
