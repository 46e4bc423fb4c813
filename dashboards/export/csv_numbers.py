"""Numbers as CSV text a block at a time, in numpy: for each value what csv_safe.cell(grid.rounded(v)) writes.

A value is written as a sign, an integer part and, if any, a point and the
decimals left after trailing zeros: the text of its rounding to 6 significant
digits (grid.rounded), scaled to a whole number and split at the point. That
is what repr() writes for such a rounding, as long as the number is neither
below 1e-4 (repr writes 1.23457e-05) nor at 1e15 or more; those, and values
within a hair of a rounding tie (where numpy's scaling could round the other
way than round() does), are written one by one as before: a handful a file.

Each cell is laid out in a fixed-width field of bytes, every cell of a block
in one array; the bytes a cell does not use are masked out at the end.
"""

import math

import numpy as np

from dashboards.export.csv_safe import MAX_EXACT

DIGITS = 6  # grid.rounded()'s significant digits
LOWEST, HIGHEST = 1e-4, 1e15  # the range written here; outside it, one by one
TIE = 1e-7  # a scaled value this close to .5 is rounded by round() itself (the scaling errs by < 1e-9)
POW10 = 10.0 ** np.arange(23)  # exact as floats
INT_POW10 = 10 ** np.arange(19, dtype=np.int64)
LUT = np.array([f"{i:04d}".encode() for i in range(10_000)]).view("<u4")  # 4 ASCII digits as one word
COMMA, CR, LF, MINUS, POINT, ZERO = (ord(c) for c in ",\r\n-.0")


def decimals(values: np.ndarray) -> np.ndarray:
    """grid.rounded()'s decimals for each (finite, non-zero) value, from math.log10 as rounded() takes them.

    numpy's log10 may differ from the C library's by an ulp: where that could move the floor (a value
    within a hair of a power of ten, such as 0.1) math.log10 decides, once per distinct value.
    """
    logs = np.log10(np.abs(values))
    near = np.flatnonzero(np.abs(logs - np.round(logs)) < 1e-9)
    floors = np.floor(logs)
    if len(near):
        distinct, where = np.unique(np.abs(values[near]), return_inverse=True)
        floors[near] = np.array([math.floor(math.log10(v)) for v in distinct.tolist()])[where]
    return np.maximum(0, DIGITS - 1 - floors).astype(np.int64)


def one_text(v: float) -> str:
    """One finite value as rounded() and csv_safe.cell() write it, in Python: for the few outside the fast range."""
    keep = max(0, DIGITS - 1 - math.floor(math.log10(abs(v)))) if v else 0
    r = round(v, keep)
    return str(int(r)) if r.is_integer() and -MAX_EXACT < r < MAX_EXACT else repr(r)


class Parts:
    """Each value rounded as grid.rounded() rounds and split for writing: its integer part (`ints`) and its
    decimals as one whole number of `places` digits (`fraction`: the block's most decimals, so 0.25 among
    values of 6 decimals is 250000); `slow`: where the value is written by one_text() instead."""

    def __init__(self, values: np.ndarray) -> None:
        size = np.abs(values)
        self.shown = np.isfinite(values)
        self.negative = (values < 0) & self.shown
        whole = self.shown & (np.floor(values) == values) & (size < MAX_EXACT)
        fast = self.shown & ~whole & (size >= LOWEST) & (size < HIGHEST)
        self.ints = np.where(whole, size, 0).astype(np.int64)
        self.fraction = np.zeros(len(values), np.int64)
        self.places = 0
        at = np.flatnonzero(fast)
        ties = self._split(at, size[at]) if len(at) else at
        self.slow = np.union1d(np.flatnonzero(self.shown & ~whole & ~fast), ties)

    def _split(self, at: np.ndarray, size: np.ndarray) -> np.ndarray:
        """Round the values at `at` to their decimals and split them at the point; returns where that
        rounding is too close to a tie to trust.

        Each rounding is shifted to the block's most decimals, so one scalar division splits them all.
        """
        keep = decimals(size)
        scaled = size * POW10[keep]
        rounded = np.rint(scaled).astype(np.int64)
        self.ints[at] = rounded
        some = np.flatnonzero(keep)  # the others are 1e5 or more: no decimals
        if len(some):
            self.places = int(keep[some].max())
            shifted = rounded[some] * INT_POW10[self.places - keep[some]]  # below 10**16: each below 1e5
            unit = INT_POW10[self.places]
            self.ints[at[some]] = shifted // unit
            self.fraction[at[some]] = shifted % unit
        return at[np.abs(scaled - np.floor(scaled) - 0.5) < TIE]


def digits(x: np.ndarray, width: int) -> np.ndarray:
    """(len(x), width) ASCII digits of non-negative int64 values, right-aligned, zero-padded."""
    groups = -(-width // 4)
    out = np.empty((len(x), groups), "<u4")
    for g in range(groups - 1, -1, -1):
        q = x // 10_000
        out[:, g] = LUT.take(x - q * 10_000)
        x = q
    return out.view(np.uint8)[:, 4 * groups - width:]


def fields(values: np.ndarray, tail: int) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, keep) of shape (len(values), width): each value's text, then `tail` bytes for separators."""
    p = Parts(values)
    slow = {i: one_text(v).encode() for i, v in zip(p.slow.tolist(), values[p.slow].tolist(), strict=True)}
    wi = max([len(str(int(p.ints.max(initial=0))))] + [len(t) for t in slow.values()])
    wf = p.places
    width = 1 + wi + (1 + wf if wf else 0) + tail
    out = np.empty((len(values), width), np.uint8)
    keep = np.empty((len(values), width), bool)
    out[:, 0] = MINUS
    keep[:, 0] = p.negative
    ints = out[:, 1:1 + wi]
    ints[:] = digits(p.ints, wi)
    seen = ints != ZERO
    seen[:, -1] = True  # 0 is written
    first = np.where(p.shown, seen.argmax(axis=1), wi)  # the first digit that is not a 0
    keep[:, 1:1 + wi] = np.arange(wi) >= first[:, None]
    if wf:
        fraction = out[:, 2 + wi:2 + wi + wf]
        fraction[:] = digits(p.fraction, wf)
        last = wf - (fraction[:, ::-1] != ZERO).argmax(axis=1)  # after the last decimal that is not a 0
        places = np.where(p.fraction > 0, last, 0)
        keep[:, 2 + wi:2 + wi + wf] = np.arange(wf) < places[:, None]
        out[:, 1 + wi] = POINT
        keep[:, 1 + wi] = places > 0
    for i, text in slow.items():
        keep[i, :width - tail] = False
        out[i, 1 + wi - len(text):1 + wi] = np.frombuffer(text, np.uint8)
        keep[i, 1 + wi - len(text):1 + wi] = True
    keep[:, width - tail:] = True
    return out, keep


def texts(values: np.ndarray) -> list[str]:
    """Each value's text ('' where it is NaN or infinite)."""
    if not len(values):
        return []
    out, keep = fields(values.astype(np.float64, copy=False), 1)
    out[:, -1] = LF
    return out[keep].tobytes().decode("ascii").split("\n")[:-1]


def block(labels: np.ndarray, values: np.ndarray) -> str:
    """CSV lines 'label,v1,...,vn\\r\\n' for rows of values (a row per label, at least one column).

    labels: ASCII bytes (numpy 'S'), written as they are: times, which need no quoting.
    """
    rows, cols = values.shape
    if not rows:
        return ""
    hw = labels.dtype.itemsize
    out, keep = fields(values.astype(np.float64, copy=False).ravel(), 1)
    width = out.shape[1]
    out = out.reshape(rows, cols, width)
    out[:, :, -1] = COMMA
    out[:, -1, -1] = CR  # the last cell's separator: the line's end
    line = np.empty((rows, hw + 1 + cols * width + 1), np.uint8)
    mask = np.empty(line.shape, bool)
    line[:, :hw] = np.ascontiguousarray(labels).view(np.uint8).reshape(rows, hw)
    mask[:, :hw] = line[:, :hw] != 0  # shorter labels are padded with NUL bytes
    line[:, hw] = COMMA
    line[:, hw + 1:-1] = out.reshape(rows, cols * width)
    mask[:, hw + 1:-1] = keep.reshape(rows, cols * width)
    line[:, -1] = LF
    mask[:, [hw, -1]] = True
    return line[mask].tobytes().decode("ascii")
