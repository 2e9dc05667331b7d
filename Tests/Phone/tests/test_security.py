"""Pairing, bonding and the encryption-only Apple services, with a Bumble central."""

from __future__ import annotations

import asyncio
import unittest

from harness import SimulatorTestCase, att_error, bumble_central, characteristic, connect_and_discover, just_works_pairing

from bumble import att, hci
from bumble.device import Peer
from bumble.pairing import PairingConfig, PairingDelegate

from phone.device import security
from phone.device.apple_services import (
    AMS_ENTITY_ATTRIBUTE_UUID,
    ANCS_CONTROL_POINT_UUID,
    ANCS_NOTIFICATION_SOURCE_UUID,
)
from phone.device.navigation_service import PAIRED_CLIENT_NAME_UUID, SERVER_NAME_UUID


class CentralDelegate(PairingDelegate):
    """The head unit's side: shows a passkey (display only) or has no IO at all."""

    def __init__(self, io_capability, passkey_override: int | None = None) -> None:
        super().__init__(io_capability=io_capability)
        self.shown: asyncio.Queue = asyncio.Queue()
        self.passkey_override = passkey_override

    async def generate_passkey(self) -> int:
        if self.passkey_override is not None:
            return self.passkey_override
        return await super().generate_passkey()

    async def display_number(self, number: int, digits: int) -> None:
        self.shown.put_nowait(f'{number:0{digits}d}')


class SecurityTests(SimulatorTestCase):
    io_capability = PairingDelegate.IoCapability.DISPLAY_OUTPUT_ONLY

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna')
        self.central, self.transport, _tap = await bumble_central(self.port)
        self.delegate = CentralDelegate(self.io_capability)
        self.central.pairing_config_factory = lambda _connection: PairingConfig(
            sc=True,
            mitm=True,
            bonding=True,
            delegate=self.delegate,
            identity_address_type=PairingConfig.AddressType.RANDOM,
        )

    async def asyncTearDown(self) -> None:
        await self.transport.close()
        await super().asyncTearDown()

    async def connect(self):
        return await connect_and_discover(self.central, self.anna.device.random_address)

    @staticmethod
    def characteristic(peer: Peer, uuid: str):
        return characteristic(peer, uuid)

    att_error = staticmethod(att_error)

    async def pair_with_passkey(self, connection, typed: str | None = None) -> None:
        """Pair; type the passkey the central shows (or `typed`) on the phone."""
        while not self.delegate.shown.empty():
            self.delegate.shown.get_nowait()  # a passkey shown for an earlier attempt
        mark = self.sim.event_mark()
        pairing = asyncio.create_task(connection.pair())
        passkey = await asyncio.wait_for(self.delegate.shown.get(), 5)
        await self.sim.wait_for('passkey_requested', phone='anna', after=mark)
        self.anna.type_passkey(typed if typed is not None else passkey)
        await asyncio.wait_for(pairing, 10)

    async def test_apple_services_need_authentication_before_pairing(self) -> None:
        _connection, peer = await self.connect()
        control_point = self.characteristic(peer, ANCS_CONTROL_POINT_UUID)
        entity_attribute = self.characteristic(peer, AMS_ENTITY_ATTRIBUTE_UUID)
        notification_source = self.characteristic(peer, ANCS_NOTIFICATION_SOURCE_UUID)
        self.assertEqual(await self.att_error(control_point.write_value(b'\x00', with_response=True)), 0x05)
        self.assertEqual(await self.att_error(entity_attribute.read_value()), 0x05)
        self.assertEqual(await self.att_error(notification_source.subscribe(lambda _value: None)), 0x05)
        # The pairing service itself needs nothing.
        self.assertIsNotNone(await self.characteristic(peer, SERVER_NAME_UUID).read_value())

    async def test_passkey_pairing_bonds_and_unlocks_ancs(self) -> None:
        connection, peer = await self.connect()
        await self.pair_with_passkey(connection)
        paired = await self.sim.wait_for('paired', phone='anna')
        self.assertEqual((paired['method'], paired['mitm'], paired['secure_connections']), ('passkey', True, True))
        self.assertEqual(paired['peer'], 'C0:98:76:54:32:10')
        self.assertTrue(paired['peer_irk'])
        self.assertEqual(self.anna.state()['bonds'], ['C0:98:76:54:32:10'])
        control_point = self.characteristic(peer, ANCS_CONTROL_POINT_UUID)
        # Past the security checks: ANCS itself reads the write (a lone CommandID is malformed).
        self.assertEqual(await self.att_error(control_point.write_value(b'\x00', with_response=True)), 0xA1)
        await self.sim.wait_for('ancs_request', phone='anna', result='0xA1')
        await self.characteristic(peer, ANCS_NOTIFICATION_SOURCE_UUID).subscribe(lambda _value: None)
        # The central learnt the phone's identity: its public address.
        all_keys = dict(await self.central.keystore.get_all())
        keys = all_keys.get(str(hci.Address(self.anna.identity.identity_address, hci.Address.PUBLIC_DEVICE_ADDRESS)))
        self.assertIsNotNone(keys)
        self.assertEqual(keys.irk.value, self.anna.identity.irk)

    async def test_wrong_passkey_fails_and_retry_on_same_link_works(self) -> None:
        connection, _peer = await self.connect()
        self.delegate.passkey_override = 123456
        with self.assertRaises(Exception):
            await self.pair_with_passkey(connection, typed='654321')
        self.delegate.passkey_override = None
        failed = await self.sim.wait_for('pairing_failed', phone='anna')
        self.assertEqual(failed['reason'], 0x04)  # Confirm Value Failed
        await self.pair_with_passkey(connection)
        await self.sim.wait_for('paired', phone='anna')

    async def test_passkey_never_typed(self) -> None:
        original = security.SMP_TIMEOUT
        security.SMP_TIMEOUT = 0.5
        try:
            connection, _peer = await self.connect()
            pairing = asyncio.create_task(connection.pair())
            await self.sim.wait_for('passkey_requested', phone='anna')
            with self.assertRaises(Exception):
                await asyncio.wait_for(pairing, 5)
            failed = await self.sim.wait_for('pairing_failed', phone='anna')
            self.assertEqual(failed['reason'], 0x01)  # Passkey Entry Failed
        finally:
            security.SMP_TIMEOUT = original
        await self.pair_with_passkey(connection)
        await self.sim.wait_for('paired', phone='anna')

    async def test_reconnect_encrypts_with_bond_and_forget_bond(self) -> None:
        connection, peer = await self.connect()
        await self.pair_with_passkey(connection)
        await self.characteristic(peer, PAIRED_CLIENT_NAME_UUID).subscribe(lambda _value: None)
        await self.sim.wait_for('subscribed', phone='anna', notify=True)
        mark = self.sim.event_mark()
        await connection.disconnect()
        await self.sim.wait_for('disconnected', phone='anna', after=mark)
        # The phone rotates its address meanwhile; the central resolves it by IRK.
        await self.anna.rotate_address()
        connection, peer = await self.connect()
        control_point = self.characteristic(peer, ANCS_CONTROL_POINT_UUID)
        # Bonded but not yet encrypted: Insufficient Encryption.
        self.assertEqual(await self.att_error(control_point.write_value(b'\x00', with_response=True)), 0x0F)
        # The bonded client's subscription survived the disconnection.
        handle = self.characteristic(peer, PAIRED_CLIENT_NAME_UUID).handle
        received: asyncio.Queue = asyncio.Queue()
        connection.gatt_client.notification_subscribers.setdefault(handle, set()).add(received.put_nowait)
        await self.anna.unpair()
        self.assertEqual(await asyncio.wait_for(received.get(), 3), b'UNPAIRED')
        await connection.encrypt()
        encrypted = await self.sim.wait_for('encrypted', phone='anna', after=mark)
        self.assertTrue(encrypted['encrypted'] and encrypted['bonded'] and encrypted['authenticated'])
        self.assertEqual(await self.att_error(control_point.write_value(b'\x00', with_response=True)), 0xA1)
        # Forget This Device: the next encryption attempt finds no key.
        mark = self.sim.event_mark()
        await connection.disconnect()
        await self.sim.wait_for('disconnected', phone='anna', after=mark)
        self.assertEqual(await self.anna.forget_bond(), ['C0:98:76:54:32:10'])
        connection, _peer = await self.connect()
        with self.assertRaises(Exception) as failure:
            await connection.encrypt()
        self.assertEqual(getattr(failure.exception, 'error_code', None), 0x06)  # PIN or Key Missing


class JustWorksTests(SimulatorTestCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.anna = await self.sim.add_phone('anna', pairing='manual')
        self.central, self.transport, _tap = await bumble_central(self.port)
        self.central.pairing_config_factory = just_works_pairing

    async def asyncTearDown(self) -> None:
        await self.transport.close()
        await super().asyncTearDown()

    async def test_just_works_with_confirmation_is_not_mitm(self) -> None:
        connection = await self.central.connect(
            self.anna.device.random_address, own_address_type=hci.OwnAddressType.RANDOM, timeout=5
        )
        pairing = asyncio.create_task(connection.pair())
        await self.sim.wait_for('pairing_confirm', phone='anna')
        self.anna.confirm_pairing(True)
        await asyncio.wait_for(pairing, 10)
        paired = await self.sim.wait_for('paired', phone='anna')
        self.assertEqual((paired['method'], paired['mitm']), ('just-works', False))
        # Bumble says authenticated after Just Works; the phone does not.
        self.assertFalse(self.anna.security.bonds['C0:98:76:54:32:10'].authenticated)


if __name__ == '__main__':
    unittest.main()


class PersistenceTests(unittest.IsolatedAsyncioTestCase):
    async def test_identity_and_bonds_survive_a_restart(self) -> None:
        import tempfile

        from phone import Simulator

        with tempfile.TemporaryDirectory() as state:
            sim = Simulator(state_dir=state, link_loss_delay=0.2)
            port = await sim.start(0)
            anna = await sim.add_phone('anna')
            central, transport, _tap = await bumble_central(port)
            central.pairing_config_factory = just_works_pairing
            connection = await central.connect(
                anna.device.random_address, own_address_type=hci.OwnAddressType.RANDOM, timeout=5
            )
            await connection.pair()
            await sim.wait_for('paired', phone='anna')
            first = anna.state()
            await transport.close()
            await sim.stop()

            sim = Simulator(state_dir=state)
            await sim.start(0)
            try:
                anna = await sim.add_phone('anna')
                second = anna.state()
                self.assertEqual(second['server_name'], first['server_name'])
                self.assertEqual(second['identity_address'], first['identity_address'])
                self.assertEqual(second['bonds'], ['C0:98:76:54:32:10'])
            finally:
                await sim.stop()
