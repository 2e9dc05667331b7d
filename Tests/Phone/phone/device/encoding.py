"""Byte-level helpers shared by the ANCS and AMS servers."""

from __future__ import annotations


def truncate_utf8(text: str, max_bytes: int) -> bytes:
    """`text` as UTF-8, cut to at most `max_bytes` bytes without splitting a
    character (iOS never sends half a character)."""
    raw = text.encode('utf-8')
    if len(raw) <= max_bytes:
        return raw
    cut = max(max_bytes, 0)
    # raw[cut] is the first byte left out; while it continues a character, the
    # character it belongs to started inside the kept part: leave it out too.
    while cut > 0 and raw[cut] & 0xC0 == 0x80:
        cut -= 1
    return raw[:cut]


def fragments(data: bytes, size: int) -> list[bytes]:
    """`data` in pieces of at most `size` bytes (at least one piece)."""
    if size < 1:
        raise ValueError('fragment size must be positive')
    return [data[start:start + size] for start in range(0, len(data), size)] or [b'']


def decimal(value: float) -> str:
    """A float as iOS writes it in AMS values: `0.5`, `1.0`, `0.6875`."""
    return repr(float(value))


def text_or_hex(value: bytes) -> dict:
    """Event fields for a value: the text when it is UTF-8, always the hex."""
    try:
        text = value.decode('utf-8')
    except UnicodeDecodeError:
        text = None
    return {'value': text, 'value_hex': value.hex()}
