"""gunicorn's workers, once the app is loaded, keep their start-up heap out of collections."""

import gc

from monitor import gunicorn_conf


def test_it_freezes_the_worker_heap_and_makes_young_collections_rarer():
    before = gc.get_threshold()
    gc.unfreeze()
    try:
        gunicorn_conf.post_worker_init(worker=None)
        assert gc.get_threshold() == (10_000, before[1], before[2])
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
