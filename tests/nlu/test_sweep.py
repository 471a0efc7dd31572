"""The originals' path over catalog lists the corpus never visited (``tests/support/sweep.py``):
every listed part picked by its place and its name, then its steps, fit and stock asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.sweep import (
    MODEL_REPLIES,
    brands,
    given_parts,
    names_for,
    run_given_part,
    run_model_given,
    run_situation,
    situations,
)

pytestmark = pytest.mark.timeout(300)


def test_a_part_is_called_by_a_span_of_its_name_no_part_listed_before_has() -> None:
    names = ["dishwasher drain pump", "drain hose", "upper rack - white wheels", "lower rack wheel"]
    assert names_for(names, 0) == ["dishwasher drain pump", "drain pump", "pump"]
    assert names_for(names, 1) == ["drain hose", "hose"]
    # "rack" and "wheel" alone are the upper rack's ("wheels" has "wheel")
    assert names_for(names, 3) == ["lower rack", "lower rack wheel"]


@pytest.mark.asyncio(loop_scope="module")
async def test_picks_and_their_follow_ups_are_right_on_lists_of_random_models(
    graph: Any, catalog_db: Path
) -> None:
    # twelve situations: the first six symptoms (by id), a diagnosis and a search each
    chosen = situations(catalog_db, per=1, seed=11)[:12]
    wrong = []
    judged = 0
    for s in chosen:
        found = await run_situation(graph, *s)
        judged += len(found.judged)
        wrong += [(found.opening, j.said, j.want, j.got) for j in found.judged if not j.ok]
    assert judged > 150
    assert not wrong, "\n".join(map(str, wrong))


@pytest.mark.asyncio(loop_scope="module")
async def test_parts_asked_after_by_their_numbers_are_found_in_every_way_of_asking(
    graph: Any, catalog_db: Path
) -> None:
    # "do you have WP902894" was out of scope, "how do i install 978029" asked which part
    wrong = []
    judged = 0
    for part in given_parts(catalog_db, count=12, seed=5):
        found = await run_given_part(graph, *part)
        judged += len(found.judged)
        wrong += [(j.said, j.want, j.got) for j in found.judged if not j.ok]
    assert judged == 12 * 15
    assert not wrong, "\n".join(map(str, wrong))


@pytest.mark.asyncio(loop_scope="module")
async def test_a_model_given_after_the_appliances_diagnosis_is_read_in_every_way_of_saying_it(
    graph: Any, catalog_db: Path
) -> None:
    # sixteen problems told with the brand and appliance, the model given in each of the
    # four ways in turn, the second part picked and its steps taken
    chosen = situations(catalog_db, per=1, seed=3, paths=("diagnose",))[:16]
    brand = brands(catalog_db, [s[1] for s in chosen])
    wrong = []
    judged = 0
    for i, (_, model, appliance, topic, _) in enumerate(chosen):
        reply = MODEL_REPLIES[i % len(MODEL_REPLIES)]
        found = await run_model_given(graph, model, brand[model], appliance, topic, reply)
        judged += len(found.judged)
        wrong += [(found.opening, j.said, j.want, j.got) for j in found.judged if not j.ok]
    assert judged > 40
    assert not wrong, "\n".join(map(str, wrong))
