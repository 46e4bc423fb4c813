"""Many metrics' rollup sums joined at once keep what read_rollups.read keeps of each metric's parts."""

import numpy as np

from store.exact_sums import sums_by
from store.joined_sums import join, join_flat

W = 60  # a bucket's width


def buckets(idx: list[int], sums: list[int]) -> dict[str, np.ndarray]:
    return {"idx": np.array(idx, np.int64), "sum": np.array(sums, np.int64), "ms": np.array(sums, np.int64) * 10}


def test_it_keeps_the_buckets_inside_the_range_the_last_part_winning_an_index():
    lo, hi = 10 * W + 5, 20 * W - 1  # bucket 10 began before the range: only the hot one (the range's polls) counts
    parts = [
        [buckets([10, 11], [1, 2]), buckets([9, 10, 11, 12], [100, 200, 300, 400]), buckets([19, 20], [5, 6])],
        [],  # nothing read
        [buckets([10], [7])],  # a stored bucket overlapping the range, none inside: the only data there is
        [buckets([14, 13], [8, 9]), buckets([13], [50])],  # a later stored part wins bucket 13
    ]
    got = join(parts, [True, False, False, False], W, lo, hi, overlapping=True)
    assert [b["idx"].tolist() for b in got] == [[10, 11, 12, 19], [], [10], [13, 14]]
    assert [b["sum"].tolist() for b in got] == [[1, 300, 400, 5], [], [7], [50, 8]]
    assert [b["ms"].tolist() for b in got] == [[10, 3000, 4000, 50], [], [70], [500, 80]]


def test_a_part_read_without_overlapping_keeps_only_the_buckets_wholly_inside():
    got = join([[buckets([10], [7])], [buckets([10, 11], [1, 2])]], [False, False], W, 10 * W + 5, 20 * W - 1,
               overlapping=False)
    assert [b["sum"].tolist() for b in got] == [[], [2]]


def test_the_joined_sums_of_every_metric_add_up_exactly_by_metric():
    big = 2**62  # two of them overflow int64: the totals are Python integers
    parts = [[buckets([10, 11], [big, big])], [], [buckets([12], [3]), buckets([12, 13], [4, -1])]]
    owner, (_idx, sums, _ms) = join_flat(parts, [False, False, False], W, 10 * W, 20 * W - 1, overlapping=True)
    assert sums_by(owner, sums, len(parts)) == ([2**63, 0, 3], [2, 0, 2])
