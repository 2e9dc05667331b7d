"""Attribute permission checks a real GATT server (iOS) makes and Bumble's does not.

Bumble's GATT server lets a client write any attribute (a read-only characteristic
value or even a characteristic declaration gets overwritten), accepts Write Commands
on characteristics without that property, stores CCCD values of any length, and
answers Insufficient Encryption (0x0F) where a client that has not paired must get
Insufficient Authentication (0x05). enforce() wraps every attribute of a server
with the checks, in the order the Core specification gives (Vol 3, Part F, 3.4.x):
permission, then security, then value.
"""

from __future__ import annotations

from collections.abc import Callable

from bumble import att, gatt

ATT_READ_NOT_PERMITTED = 0x02
ATT_WRITE_NOT_PERMITTED = 0x03
ATT_INSUFFICIENT_AUTHENTICATION = 0x05
ATT_INVALID_ATTRIBUTE_VALUE_LENGTH = 0x0D
ATT_INSUFFICIENT_ENCRYPTION = 0x0F

_P = att.Attribute.Permissions
_READ_SECURITY = _P.READ_REQUIRES_ENCRYPTION | _P.READ_REQUIRES_AUTHENTICATION
_WRITE_SECURITY = _P.WRITE_REQUIRES_ENCRYPTION | _P.WRITE_REQUIRES_AUTHENTICATION

CCCD_UUID = gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR


class LinkSecurity:
    """What the server knows about a connection's security. The phone supplies it
    (Bumble's `connection.authenticated` is true after Just Works too)."""

    def __init__(
        self,
        encrypted: Callable[[object], bool] = lambda connection: bool(getattr(connection, 'encryption', 0)),
        authenticated: Callable[[object], bool] = lambda connection: False,
        bonded: Callable[[object], bool] = lambda connection: False,
    ) -> None:
        self.encrypted = encrypted
        self.authenticated = authenticated
        self.bonded = bonded

    def check(self, connection, permissions: int, encryption_bit: int, authentication_bit: int) -> int | None:
        """The ATT error for an access that needs `permissions`, or None."""
        if connection is None or not permissions & (encryption_bit | authentication_bit):
            return None
        if not self.encrypted(connection):
            # Core spec Vol 3, Part C, 10.3.1: without a key for this peer the client
            # must pair first (Insufficient Authentication); with one it must only
            # start encryption (Insufficient Encryption).
            return ATT_INSUFFICIENT_ENCRYPTION if self.bonded(connection) else ATT_INSUFFICIENT_AUTHENTICATION
        if permissions & authentication_bit and not self.authenticated(connection):
            return ATT_INSUFFICIENT_AUTHENTICATION
        return None


def _connection_of(bearer):
    return bearer.connection if att.is_enhanced_bearer(bearer) else bearer


def enforce(server, security: LinkSecurity) -> None:
    """Wrap every attribute of `server` (call after all services are added; a
    service added later is wrapped with protect())."""
    protect(server.attributes, security)
    original_write_command = server.on_att_write_command

    def on_att_write_command(bearer, request) -> None:
        # A Write Command gets no answer: one the attribute does not allow is dropped.
        attribute = server.get_attribute(request.attribute_handle)
        if isinstance(attribute, gatt.Characteristic) and not (
            attribute.properties & gatt.Characteristic.Properties.WRITE_WITHOUT_RESPONSE
        ):
            return
        return original_write_command(bearer, request)

    server.on_att_write_command = on_att_write_command


def protect(attributes, security: LinkSecurity) -> None:
    """Wrap these attributes with the permission and security checks."""
    for attribute in attributes:
        _wrap(attribute, security)


def _wrap(attribute, security: LinkSecurity) -> None:
    original_read = attribute.read_value
    original_write = attribute.write_value
    # The security bits are checked here; Bumble's own (wrong) check is disabled.
    permissions = attribute.permissions
    attribute.permissions = permissions & ~(_READ_SECURITY | _WRITE_SECURITY)

    async def read_value(bearer) -> bytes:
        if not permissions & _P.READABLE:
            raise att.ATT_Error(ATT_READ_NOT_PERMITTED, attribute.handle)
        error = security.check(
            _connection_of(bearer), permissions, _P.READ_REQUIRES_ENCRYPTION, _P.READ_REQUIRES_AUTHENTICATION
        )
        if error is not None:
            raise att.ATT_Error(error, attribute.handle)
        return await original_read(bearer)

    async def write_value(bearer, value: bytes) -> None:
        if not permissions & _P.WRITEABLE:
            raise att.ATT_Error(ATT_WRITE_NOT_PERMITTED, attribute.handle)
        error = security.check(
            _connection_of(bearer), permissions, _P.WRITE_REQUIRES_ENCRYPTION, _P.WRITE_REQUIRES_AUTHENTICATION
        )
        if error is not None:
            raise att.ATT_Error(error, attribute.handle)
        if attribute.type == CCCD_UUID and len(value) != 2:
            raise att.ATT_Error(ATT_INVALID_ATTRIBUTE_VALUE_LENGTH, attribute.handle)
        await original_write(bearer, value)

    attribute.read_value = read_value
    attribute.write_value = write_value
