"""The simulated radio and the head unit's controller."""

from .capabilities import ControllerVariant
from .controller import CorrectedController
from .h4_server import H4Server
from .host_interface import HostInterface
from .link import SimulatedLink

__all__ = ['ControllerVariant', 'CorrectedController', 'H4Server', 'HostInterface', 'SimulatedLink']
