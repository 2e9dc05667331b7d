"""python -m phone --hci-port 0 [--phone NAME ...] [--advertising-sets [N]] [--demo] [--acl-size 27] [controller variant] [--log-level LEVEL]

stdout carries only the control channel (JSON events, one per line); logs and
anything else printed go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import threading

from .control import ControlProtocol
from .controller import advertising_sets
from .scenarios import demo
from .controller import ControllerVariant, broadcom
from .simulator import DEFAULT_HEAD_UNIT_ADDRESS, Simulator


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog='python -m phone', description='Simulated iPhones for the head unit.')
    parser.add_argument('--hci-port', type=int, default=0, help='TCP port of the H4 server on 127.0.0.1 (0: any free port)')
    parser.add_argument('--phone', action='append', default=[], metavar='NAME', help='add a phone with default settings (repeatable)')
    parser.add_argument('--acl-size', type=int, default=27, help='LE ACL data packet length the controller reports (default 27)')
    parser.add_argument('--acl-buffers', type=int, default=8, help='number of LE ACL buffers the controller reports (default 8)')
    parser.add_argument('--head-unit-address', default=DEFAULT_HEAD_UNIT_ADDRESS, help='public address of the head unit controller')
    parser.add_argument('--state', metavar='DIR', help='keep phone identities (server names, IRKs) in DIR across runs')
    parser.add_argument('--link-loss-delay', type=float, help='seconds until a lost link is noticed (default: the supervision timeout)')
    parser.add_argument('--advertising-sets', type=int, nargs='?', const=2, default=0, metavar='N',
                        help='the head unit controller also has N advertising sets (2 without N; 0, the default: legacy advertising only; LE Extended Advertising claimed; extended scanning only with --extended-scanning)')
    variant = parser.add_argument_group('the head unit controller (real chips differ here; Tests/Phone/README.md)')
    variant.add_argument('--no-key-size-command', action='store_true', help='no Read Encryption Key Size (answered Unknown HCI Command), as Bumble\'s own controller')
    variant.add_argument('--ll-privacy', action='store_true', help='LL Privacy: a working resolving list, LE Read Resolving List Size')
    variant.add_argument('--accept-list-size', type=int, default=8, metavar='N', help='filter accept list entries (default 8)')
    variant.add_argument('--resolving-list-size', type=int, default=8, metavar='N', help='resolving list entries with --ll-privacy (default 8)')
    variant.add_argument('--extended-scanning', action='store_true', help='LE Set Extended Scan Parameters / Enable and LE Extended Create Connection on LE 1M (extended reports)')
    variant.add_argument('--broadcom', choices=sorted(broadcom.CHIPS), metavar='CHIP',
                         help='a Raspberry Pi\'s onboard chip (BCM43430A1, BCM43430B0, BCM4345C0, BCM4345C5): answers '
                              'the kernel\'s btbcm bring-up (vendor commands, patch RAM) with its LMP subversion')
    variant.add_argument('--no-mixing', action='store_true', help='refuse legacy and extended advertising/scanning/initiating commands mixed with Command Disallowed until HCI_Reset (Core Vol 4 Part E 3.1.1)')
    parser.add_argument('--demo', action='store_true', help='play the demo scenarios on every --phone once a head unit subscribes to ANCS')
    parser.add_argument('--demo-interval', type=float, default=2.0, metavar='S', help='seconds between demo steps (default 2)')
    parser.add_argument('--exit-on-eof', action='store_true', help='quit when stdin closes (default: keep running until quit or SIGTERM)')
    parser.add_argument('--log-level', default='WARNING', help='DEBUG, INFO, WARNING or ERROR (logs go to stderr)')
    arguments = parser.parse_args(argv)
    if not 0 <= arguments.advertising_sets <= advertising_sets.MAX_SETS:
        parser.error(f'--advertising-sets must be 0..{advertising_sets.MAX_SETS}')
    if not 1 <= arguments.acl_size <= 0xFFFF or arguments.acl_buffers < 1:
        parser.error('--acl-size must be 1..65535 and --acl-buffers at least 1')
    if not (0 <= arguments.accept_list_size <= 255 and 0 <= arguments.resolving_list_size <= 255):
        parser.error('--accept-list-size and --resolving-list-size must be 0..255')
    return arguments


def controller_variant(arguments: argparse.Namespace) -> ControllerVariant:
    return ControllerVariant(
        key_size_command=not arguments.no_key_size_command,
        ll_privacy=arguments.ll_privacy,
        accept_list_size=arguments.accept_list_size,
        resolving_list_size=arguments.resolving_list_size,
        extended_scanning=arguments.extended_scanning,
        no_mixing=arguments.no_mixing,
        broadcom=arguments.broadcom,
    )


class EventWriter:
    """Writes events as JSON lines; holds them back until the ready line is out."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.held: list[dict] | None = []

    def __call__(self, event: dict) -> None:
        if self.held is not None:
            self.held.append(event)
            return
        self._write(event)

    def ready(self, event: dict) -> None:
        self._write(event)
        held, self.held = self.held or [], None
        for event in held:
            self._write(event)

    def _write(self, event: dict) -> None:
        self.stream.write(json.dumps(event, separators=(',', ':')) + '\n')
        self.stream.flush()


def _read_stdin(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue) -> None:
    for line in sys.stdin:
        loop.call_soon_threadsafe(queue.put_nowait, line)
    loop.call_soon_threadsafe(queue.put_nowait, None)


async def run(arguments: argparse.Namespace, control_stream) -> int:
    writer = EventWriter(control_stream)
    simulator = Simulator(
        acl_size=arguments.acl_size,
        acl_buffers=arguments.acl_buffers,
        head_unit_address=arguments.head_unit_address,
        state_dir=arguments.state,
        link_loss_delay=arguments.link_loss_delay,
        advertising_sets=arguments.advertising_sets,
        controller_variant=controller_variant(arguments),
        on_event=writer,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)

    port = await simulator.start(arguments.hci_port)
    for name in arguments.phone:
        await simulator.add_phone(name)
    writer.ready(
        {
            'event': 'ready',
            'hci_port': port,
            'phones': [phone.state() for phone in simulator.phones.values()],
        }
    )

    protocol = ControlProtocol(simulator, on_quit=stop.set)
    demos = [
        asyncio.create_task(demo(phone, interval=arguments.demo_interval))
        for phone in (simulator.phones.values() if arguments.demo else ())
    ]
    lines: asyncio.Queue = asyncio.Queue()
    threading.Thread(target=_read_stdin, args=(loop, lines), daemon=True).start()

    async def serve() -> None:
        while True:
            line = await lines.get()
            if line is None:
                logging.getLogger(__name__).info('control input closed')
                if arguments.exit_on_eof:
                    stop.set()
                return
            reply = await protocol.handle_line(line)
            if reply is not None:
                simulator.emit(reply)

    server_task = asyncio.create_task(serve())
    await stop.wait()
    server_task.cancel()
    for task in demos:
        task.cancel()
    await simulator.stop()
    writer({'event': 'stopped'})
    return 0


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, str(arguments.log_level).upper(), logging.WARNING),
        format='%(asctime)s %(levelname)s %(name)s: %(message)s',
    )
    # The control channel is the real stdout; a stray print() lands on stderr.
    control_stream = sys.stdout
    sys.stdout = sys.stderr
    return asyncio.run(run(arguments, control_stream))
