"""Simulated iPhones (Bumble) for the NavigationNotifier head unit.

    from phone import Simulator
"""

from .device.phone import Phone, PhoneError, PhoneSettings
from .simulator import Simulator

__all__ = ['Phone', 'PhoneError', 'PhoneSettings', 'Simulator']
