"""Min/max downsampling: each bin's lowest and highest point, once each, in time order."""

import numpy as np

from store.downsample import minmax


def test_each_bins_min_and_max_in_time_order():
    # 10 points, 4 points asked: 2 bins of 5 (t 0-4, 5-9). Bin 0: min 1 first at 1, max 5 at 4;
    # bin 1: max 9 at 5, min 2 at 6.
    ts = np.arange(10, dtype=np.int64)
    vals = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], dtype=float)
    assert minmax(ts, vals, 4).tolist() == [1, 4, 5, 6]


def test_a_flat_bin_and_a_one_point_bin_give_one_index_each():
    # Bins of t*2/101: t 0-3 in bin 0 (all 5: min and max are index 0), t 100 alone in bin 1.
    ts = np.array([0, 1, 2, 3, 100], dtype=np.int64)
    vals = np.array([5, 5, 5, 5, 7], dtype=float)
    assert minmax(ts, vals, 4).tolist() == [0, 4]


def test_few_points_are_all_kept():
    assert minmax(np.arange(3, dtype=np.int64), np.zeros(3), 4).tolist() == [0, 1, 2]
