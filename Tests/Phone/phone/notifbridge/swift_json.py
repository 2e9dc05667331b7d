"""JSON written the way Swift's JSONEncoder writes it with its default
strategies, so that the head unit's parser meets the phone's real bytes:

- compact (no spaces), members in the order given (synthesized Codable
  encodes in declaration order), absent optionals (None) left out;
- `/` escaped as `\\/` (JSONEncoder without `.withoutEscapingSlashes`),
  `"` and `\\` escaped, `\\n \\r \\t \\b \\f` for those controls, `\\u00xx` for
  the others; everything else, non-ASCII included, as raw UTF-8;
- `bytes` as padded standard base64 (`.base64`), `uuid.UUID` as its
  uppercase `uuidString`, `SwiftDate` as seconds since 2001-01-01T00:00:00Z
  (`.deferredToDate`);
- a Double in its shortest round-trip form with a whole number's `.0`
  dropped (`1.0` is written `1`); NaN and infinities are refused, as
  JSONEncoder throws on them.
"""

from __future__ import annotations

import base64
import dataclasses
import math
import time
import uuid

# 2001-01-01T00:00:00Z in Unix seconds: Foundation's reference date.
REFERENCE_DATE_UNIX = 978307200.0


@dataclasses.dataclass(frozen=True)
class SwiftDate:
    """A Foundation Date: seconds since the reference date."""

    since_reference: float

    @classmethod
    def now(cls) -> 'SwiftDate':
        return cls(time.time() - REFERENCE_DATE_UNIX)


_ESCAPES = {'"': '\\"', '\\': '\\\\', '/': '\\/', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f'}


def _string(text: str) -> str:
    out = ['"']
    for character in text:
        escaped = _ESCAPES.get(character)
        if escaped is not None:
            out.append(escaped)
        elif ord(character) < 0x20:
            out.append(f'\\u{ord(character):04x}')
        else:
            out.append(character)
    out.append('"')
    return ''.join(out)


def _double(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError(f'JSONEncoder refuses {value!r}')
    text = repr(float(value))
    return text[:-2] if text.endswith('.0') else text


def _value(value) -> str:
    if value is True:
        return 'true'
    if value is False:
        return 'false'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, SwiftDate):
        return _double(value.since_reference)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (bytes, bytearray)):
        return _string(base64.b64encode(bytes(value)).decode('ascii'))
    if isinstance(value, uuid.UUID):
        return _string(str(value).upper())
    if isinstance(value, dict):
        members = [f'{_string(key)}:{_value(item)}' for key, item in value.items() if item is not None]
        return '{' + ','.join(members) + '}'
    if isinstance(value, (list, tuple)):
        return '[' + ','.join(_value(item) for item in value) + ']'
    raise TypeError(f'no JSONEncoder form for {type(value).__name__}')


def encode(value) -> bytes:
    """The UTF-8 bytes JSONEncoder().encode(value) gives."""
    return _value(value).encode('utf-8')
