"""Which oldest transaction is worth a holder row, by its whole-second age as INNODB_TRX gives it."""

from collectors.holders import worth_keeping


def holder(age_s: int) -> dict:
    return {"age_s": age_s, "key": "trx 1"}


def test_a_millisecond_transaction_that_crossed_a_second_is_no_holder():
    # Begun at x.999 and read at x+1.001: TIMESTAMPDIFF of two whole-second times says 1.
    assert worth_keeping(holder(0)) is None
    assert worth_keeping(holder(1)) is None


def test_two_seconds_prove_a_transaction_open_over_a_second():
    # Age 2 is at least 1 s (begun at x.999, read at x+2.0) however the seconds fall: no statement of milliseconds.
    assert worth_keeping(holder(2)) == holder(2)
    assert worth_keeping(None) is None
