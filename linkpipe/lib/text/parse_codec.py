"""A sentence's parse as bytes, to store it: a little-endian count, five int32 arrays (token
starts, ends, heads, subtree left and right edges) and the parts of speech joined by U+001F."""

from __future__ import annotations

import struct

import numpy as np

from linkpipe.lib.text.parsing import SentenceParse

_SEP = "\x1f"


def encode_parse(parse: SentenceParse) -> bytes:
    """The bytes of ``parse`` (see the module)."""
    n = len(parse.starts)
    ints = np.array(
        [parse.starts, parse.ends, parse.heads, parse.left, parse.right], dtype="<i4"
    ).reshape(5, n)
    return struct.pack("<I", n) + ints.tobytes() + _SEP.join(parse.pos).encode("utf-8")


def decode_parse(data: bytes) -> SentenceParse:
    """The parse :func:`encode_parse` wrote; ValueError when ``data`` is not one."""
    if len(data) < 4:
        raise ValueError("a stored parse needs at least 4 bytes")
    (n,) = struct.unpack_from("<I", data)
    if len(data) < 4 + 20 * n:
        raise ValueError(f"a stored parse of {n} tokens is cut short ({len(data)} bytes)")
    ints = np.frombuffer(data, dtype="<i4", count=5 * n, offset=4).reshape(5, n).tolist()
    pos = tuple(data[4 + 20 * n :].decode("utf-8").split(_SEP)) if n else ()
    if len(pos) != n:
        raise ValueError(f"a stored parse of {n} tokens has {len(pos)} parts of speech")
    starts, ends, heads, left, right = (tuple(row) for row in ints)
    return SentenceParse(starts, ends, heads, pos, left, right)
