"""csv_numbers writes a block of numbers in numpy: each cell the text a plain round() and repr() give it."""

import math

import numpy as np

from dashboards.export.csv_numbers import block, texts
from dashboards.export.csv_safe import iso_utc, iso_utc_many
from store.points import from_micros


def reference(v: float) -> str:
    """One value written by hand: 6 significant digits (whole numbers as they are), repr of the rounding."""
    if not math.isfinite(v):
        return ""
    if v == int(v) and abs(v) < 2**53:
        return str(int(v))
    r = round(v, max(0, 5 - math.floor(math.log10(abs(v)))))
    return str(int(r)) if r == int(r) and abs(r) < 2**53 else repr(r)


def test_it_writes_hand_worked_values():
    values = [9.999996, -9.999996, 99999.97, 0.0009999996, -0.0, 0.0, 1 / 3, -2 / 3, 12345.678, 0.1, 100000.5,
              100001.5, 0.000123456789, 1234567.89, -2.5, float("nan"), float("-inf"), 0.00001234567, 2.0**60]
    assert texts(np.array(values)) == [
        "10", "-10", "100000", "0.001", "0", "0", "0.333333", "-0.666667", "12345.7", "0.1", "100000",
        "100002", "0.000123457", "1234568", "-2.5", "", "", "1.23457e-05", "1.152921504606847e+18"]


def edge_values() -> np.ndarray:
    powers = 10.0 ** np.arange(-12, 20)
    return np.concatenate([
        powers, -powers, np.nextafter(powers, 0), np.nextafter(powers, np.inf), powers * (1 - 5e-7), powers * 0.9999995,
        powers * 1.0000005, 1.5 * powers, 0.5 + np.arange(-10, 10) * 100_000.0,  # exact ties at the units
        [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 2.0**53, 2.0**53 - 1, -(2.0**53), 2.0**53 + 2,
         1e15 - 0.5, 1e15 + 0.5, 1e-4, np.nextafter(1e-4, 0), 9.99999e-5, 0.0001234565, 1.234565, 123.4565],
    ])


def random_values() -> np.ndarray:
    rng = np.random.default_rng(11)
    return np.concatenate([
        rng.normal(0, 1, 20_000) * 10.0 ** rng.integers(-14, 20, 20_000),  # every magnitude, both signs
        rng.integers(-10**9, 10**9, 5_000).astype(np.float64),  # whole numbers
        rng.poisson(3, 5_000) / 5.0, rng.poisson(40, 5_000) / 7.0, -rng.poisson(5, 5_000) / 3.0,  # rates
        rng.integers(1, 10**12, 5_000) / 1e12,  # picosecond timers as seconds
        rng.integers(1, 10**7, 5_000) / 10.0 ** rng.integers(1, 8, 5_000),  # few decimals: trailing zeros
        (rng.integers(100_000, 1_000_000, 5_000) + 0.5) * 10.0 ** -rng.integers(0, 10, 5_000),  # a 5 after 6 digits
    ])


def test_it_writes_edge_values_as_round_and_repr_do():
    values = edge_values()
    assert texts(values) == [reference(v) for v in values.tolist()]


def test_it_writes_random_values_as_round_and_repr_do():
    values = random_values()
    assert texts(values) == [reference(v) for v in values.tolist()]


def test_a_block_is_the_rows_joined_with_their_times():
    values = np.concatenate([edge_values(), random_values()[::11]])[: 70 * 53].reshape(70, 53)
    us = 1_764_000_000_000_000 + np.arange(70) * 5_000_000
    us[3] += 250_000  # a time with a fraction of a second
    labels = iso_utc_many(us)
    expected = "".join(iso_utc(from_micros(int(t))) + "," + ",".join(reference(v) for v in row) + "\r\n"
                       for t, row in zip(us.tolist(), values.tolist(), strict=True))
    assert block(labels, values) == expected
    assert labels[3] == b"2025-11-24T16:00:15.250000Z"
