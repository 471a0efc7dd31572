from __future__ import annotations

from partchat.catalog import Catalog


async def test_classic_part_fits_classic_model(catalog: Catalog) -> None:
    result = await catalog.compatibility("PS3406971", "WDT780SAEM1")
    assert result["status"] == "fits"
    assert result["evidence"] in ("part_page", "model_page")
    assert result["part"] is not None and result["part"]["ps_number"] == "PS3406971"
    assert result["part"]["mfr_number"] == "W10195416"
    assert result["part"]["part_type"] == "Dishrack Wheel"
    assert result["model"] is not None and result["model"]["appliance"] == "dishwasher"


async def test_hand_added_pair_is_dropped(catalog: Catalog) -> None:
    result = await catalog.compatibility("PS11752778", "WDT780SAEM1")
    assert result["status"] == "not_listed"
    assert result["part"] is not None and result["part"]["appliances"] == ["refrigerator"]


async def test_unknown_part_and_model(catalog: Catalog) -> None:
    assert (await catalog.compatibility("PS0000000001", "WDT780SAEM1"))["status"] == "unknown_part"
    assert (await catalog.compatibility("PS3406971", "NOSUCHMODEL999"))["status"] == "unknown_model"


async def test_get_part_by_any_number(catalog: Catalog) -> None:
    for number in ("PS3406971", "ps3406971", " PS 3406971 ", "W10195416", "w10195416", "3406971"):
        part = await catalog.get_part(number)
        assert part is not None, number
        assert part["ps_number"] == "PS3406971"
    assert await catalog.get_part("NOPE-123") is None


async def test_replaced_number_resolves_to_current_part(catalog: Catalog) -> None:
    pump = await catalog.get_part("PS11753379")
    assert pump is not None and "W10348269" in pump["replaces"]
    via_old = await catalog.get_part("W10348269")
    assert via_old is not None and via_old["ps_number"] == "PS11753379"
    wheel = await catalog.get_part("W10195416VP")
    assert wheel is not None and wheel["ps_number"] == "PS3406971"


async def test_part_facts_are_clean(catalog: Catalog) -> None:
    part = await catalog.get_part("PS11752778")
    assert part is not None
    assert part["price_cents"] is not None and part["price_cents"] > 0
    assert part["rating_pct"] is not None and 0 <= part["rating_pct"] <= 100
    assert part["review_count"] is not None and part["review_count"] > 0
    assert part["difficulty"] == part["difficulty"].strip() if part["difficulty"] else True
    assert part["install_time"] == "Less than 15 mins"
    for label in part["symptoms"]:
        assert "’" not in label and label == label.strip()


async def test_search_exact_number_first(catalog: Catalog) -> None:
    for q in ("W10195416", "PS3406971", "W10195416VP"):
        hits = await catalog.search(q)
        assert hits and hits[0]["part"]["ps_number"] == "PS3406971", q


async def test_search_words_ranked(catalog: Catalog) -> None:
    hits = await catalog.search("drain pump", appliance="dishwasher")
    assert hits
    assert all("dishwasher" in h["part"]["appliances"] for h in hits)
    assert hits[0]["part"]["part_type"] == "Drain Pump"
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


async def test_search_restricted_to_model(catalog: Catalog) -> None:
    hits = await catalog.search("drain pump", model="WDT780SAEM1")
    assert hits and hits[0]["part"]["ps_number"] == "PS11753379"
    for h in hits:
        fit = await catalog.compatibility(h["part"]["ps_number"], "WDT780SAEM1")
        assert fit["status"] == "fits"


async def test_parts_for_model(catalog: Catalog) -> None:
    parts = await catalog.parts_for_model("WDT780SAEM1")
    numbers = {p["ps_number"] for p in parts}
    assert {"PS3406971", "PS11753379"} <= numbers
    assert "PS11752778" not in numbers
    wheels = await catalog.parts_for_model("wdt780saem1", part_type="dishrack wheel")
    assert [p["ps_number"] for p in wheels] == ["PS3406971"]
    assert await catalog.parts_for_model("NOSUCHMODEL") == []


async def test_model_page_evidence(catalog: Catalog) -> None:
    fit = await catalog.compatibility("PS16745479", "004621710A")
    assert fit["status"] == "fits" and fit["evidence"] == "model_page"
    missing = await catalog.compatibility("PS3406971", "004621710A")
    assert missing["status"] == "not_listed" and missing["evidence"] == "model_page"


async def test_find_model(catalog: Catalog) -> None:
    exact = await catalog.find_model("wdt-780 saem1")
    assert exact["match"] is not None and exact["match"]["model_number"] == "WDT780SAEM1"
    revision = await catalog.find_model("WDT780SAEM")
    assert revision["match"] is not None and revision["match"]["model_number"] == "WDT780SAEM1"
    typo = await catalog.find_model("WDT780SAM1")
    assert typo["match"] is None
    assert "WDT780SAEM1" in typo["suggestions"]
    in_text = await catalog.find_model("my Whirlpool WDT780SAEM1 dishwasher")
    assert in_text["match"] is not None
    nothing = await catalog.find_model("zz")
    assert nothing["match"] is None and len(nothing["suggestions"]) <= 5


async def test_install_guides(catalog: Catalog) -> None:
    guide = await catalog.install_guide("Drain Pump")
    assert not guide["generic"] and guide["part_type"] == "Drain Pump"
    assert guide["safety"] and guide["tools"] and guide["steps"] and guide["test"]
    assert any("nplug" in s for s in guide["safety"])
    general = await catalog.install_guide("Quantum Widget")
    assert general["generic"] and general["part_type"] is None
    for_part = await catalog.install_guide_for_part("PS3406971")
    assert for_part is not None and for_part["part_type"] == "Dishrack Wheel"
    assert for_part.get("video_url", "").startswith("https://www.youtube.com/")


async def test_near_miss_index_is_invisible_to_the_garbage_collector(catalog: Catalog) -> None:
    """Built after the server froze its heap, 100k+ lists would be walked by every full
    collection; tuples of strings (and the dict of them) are untracked after one pass."""
    import gc

    catalog.warm()
    index = catalog._models._del_index
    assert index is not None and len(index) > 10_000
    gc.collect()
    assert not gc.is_tracked(index)
    assert not any(gc.is_tracked(v) for v in list(index.values())[:1000])
    typo = await catalog.find_model("WDT780SAEMX")
    assert "WDT780SAEM1" in typo["suggestions"]


async def test_repeated_unknown_model_gets_the_same_suggestions(catalog: Catalog) -> None:
    """The suggestions of a model number are kept: asked again, the same list, and a
    caller changing the list it got does not change the next one."""
    first = await catalog.find_model("WDT780SAEMX")
    assert "WDT780SAEM1" in first["suggestions"]
    first["suggestions"].clear()
    again = await catalog.find_model("WDT780SAEMX")
    assert "WDT780SAEM1" in again["suggestions"]
    assert again == await catalog.find_model("WDT780SAEMX")


async def test_search_words_are_stemmed_as_the_index_is(catalog: Catalog) -> None:
    # One stemmer (catalog/stem.py) for the model-scoped search, as the FTS index's
    # porter tokenizer does: a short plural ("arms", "bins") finds the singular name.
    hits = await catalog.search("spray arms", model="18385")
    assert [h["part"]["ps_number"] for h in hits] == ["PS1765980"]
    hits = await catalog.search("door bins", model="10632242101")
    assert hits[0]["part"]["ps_number"] == "PS11752517"
    for query in ("ice maker", "drain pump", "water filter", "door gasket", "defrost heater"):
        assert await catalog.search(query) == await catalog.search(query.replace(" ", "  "))
