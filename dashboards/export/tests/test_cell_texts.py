"""The series export writes its numbers as text in one pass: the same text the csv module wrote for each cell."""

import csv
import io

import numpy as np

from dashboards.export.csv_safe import cell
from dashboards.export.grid import rounded, texts


def written(values: list[float]) -> list[str]:
    """What csv.writer wrote for the rounded values, one cell at a time (the way rows were written before)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([cell(None if v != v else rounded(v)) for v in values])
    return next(csv.reader(io.StringIO(out.getvalue())))


def test_hand_worked_cells():
    values = [5719.333333333, 3.0, -0.0, float("nan"), float("inf"), 2.0**60, 0.000012345678, -2.5, 1234567.4, 0.2]
    assert texts(np.array(values)) == ["5719.33", "3", "0", "", "", "1.152921504606847e+18", "1.23457e-05", "-2.5",
                                       "1234567", "0.2"]


def test_random_values_of_every_magnitude_are_written_as_before():
    rng = np.random.default_rng(3)
    values = np.concatenate([
        rng.normal(0, 1, 3000) * 10.0 ** rng.integers(-12, 18, 3000),  # every magnitude, both signs
        rng.integers(-10**6, 10**6, 2000).astype(np.float64),  # whole numbers
        rng.poisson(3, 2000) / 5.0,  # small deltas over a 5 s interval: rates
        10.0 ** np.arange(-8, 17), 10.0 ** np.arange(-8, 17) - 1e-9, np.nextafter(10.0 ** np.arange(1, 17), 0),
        [2.0**53, 2.0**53 - 1, -(2.0**53), float("nan"), float("-inf")],
    ])
    assert texts(values) == written(values.tolist())
