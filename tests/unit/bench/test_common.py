"""``bench/common.py``: the server-added gap of a paced answer."""

from __future__ import annotations

from bench import common

MS = 1_000_000


def test_fake_jitter_is_not_charged_to_the_server() -> None:
    # The fake wrote tokens ending at 3, 7, 12 characters 20, 23 and 20 ms apart (its
    # timers jitter); the client saw each 1 ms after it was written, then one 2 ms late.
    written = {3: 100 * MS, 7: 120 * MS, 12: 143 * MS, 15: 163 * MS}
    frames = [(101 * MS, 3), (121 * MS, 7), (144 * MS, 12), (166 * MS, 15)]
    assert common.added_gaps(frames, written) == [0, 0, 2 * MS]


def test_a_coalesced_frame_is_timed_by_its_last_token() -> None:
    written = {3: 100 * MS, 7: 120 * MS, 12: 140 * MS}
    # tokens 2 and 3 arrived in one frame, 1 ms after token 3 was written
    assert common.added_gaps([(100 * MS, 3), (141 * MS, 12)], written) == [1 * MS]


def test_frames_that_do_not_end_on_a_logged_token_give_none() -> None:
    written = {3: 100 * MS, 7: 120 * MS}
    assert common.added_gaps([(100 * MS, 3), (121 * MS, 8)], written) is None
    assert common.added_gaps([(100 * MS, 3), (121 * MS, 7)], {}) is None
    assert common.added_gaps([(100 * MS, 3)], written) == []
