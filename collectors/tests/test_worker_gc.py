"""A worker, once ready, keeps its start-up heap out of collections and collects young objects less often."""

import gc

from collectors.tasks import GC_YOUNG, tune_collection


def test_it_freezes_the_start_up_heap_and_makes_young_collections_rarer():
    before = gc.get_threshold()
    try:
        tune_collection()
        assert gc.get_threshold() == (10_000, before[1], before[2])
        assert GC_YOUNG == 10_000
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
