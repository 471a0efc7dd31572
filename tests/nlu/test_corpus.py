"""The corpus itself: well-formed, labels that exist, numbers the catalog knows, a split
made once and a test split that does not change without saying so."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import pytest

from partchat.catalog import Catalog
from partchat.nlu import corpus
from partchat.nlu.dialogue import ANSWER
from partchat.nlu.features import normalize

INTENTS = {
    "search", "details", "compat", "diagnose", "install", "greeting", "thanks",
    "out_of_scope", "injection", "orders", ANSWER,
}  # fmt: skip
TOOLS = {
    None, "search_parts", "get_part_details", "check_compatibility", "diagnose_repair",
    "get_installation_instructions",
}  # fmt: skip
# The frozen test split. Changing it needs a reason in the commit message.
FROZEN = "FROZEN.sha256"


def _all_labelled() -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    out: list[tuple[str, dict]] = []  # type: ignore[type-arg]
    for split in corpus.SPLITS:
        out += [(m["id"], dict(m)) for m in corpus.messages(split)]
        for d in corpus.dialogues(split):
            out += [(f"{d['id']}#{i}", dict(t)) for i, t in enumerate(d["turns"], 1)]
    return out


def test_the_test_split_is_frozen() -> None:
    root = resources.files(corpus.PACKAGE_DATA)
    recorded = dict(
        line.split("  ", 1)[::-1] for line in root.joinpath(FROZEN).read_text().splitlines()
    )
    for name in ("messages_test.jsonl", "dialogues_test.jsonl"):
        digest = hashlib.sha256(root.joinpath(name).read_bytes()).hexdigest()
        assert recorded[name] == digest, (
            f"{name} changed: say why in the commit, then update {FROZEN}"
        )


def test_every_item_is_in_the_split_its_id_gives() -> None:
    for split in corpus.SPLITS:
        assert all(corpus.split_of(m["id"]) == split for m in corpus.messages(split))
        assert all(corpus.split_of(d["id"]) == split for d in corpus.dialogues(split))


def test_ids_are_unique_and_no_test_text_is_trained_on() -> None:
    ids = [i for i, _ in _all_labelled()]
    assert len(ids) == len(set(ids))
    train = {m["text"].lower() for m in corpus.messages("train")}
    train |= {t["user"].lower() for d in corpus.dialogues("train") for t in d["turns"]}
    test = [m["text"] for m in corpus.messages("test")]
    assert [t for t in test if t.lower() in train] == []


def test_items_written_after_the_split_do_not_repeat_held_out_text() -> None:
    """``tr-`` items were written after the split: none may equal a dev or test message
    once numbers and punctuation are normalised ("PS123 price?" is "PS456 price?")."""
    held_out = {normalize(m["text"]) for s in ("dev", "test") for m in corpus.messages(s)}
    held_out |= {
        normalize(t["user"])
        for s in ("dev", "test")
        for d in corpus.dialogues(s)
        for t in d["turns"]
    }
    later = [m for m in corpus.messages("train") if m["id"].startswith("tr-")]
    assert len(later) > 1000
    assert [m["id"] for m in later if normalize(m["text"]) in held_out] == []


def test_items_written_after_the_split_never_join_test() -> None:
    assert corpus.split_of("tr-anything") == "train"
    assert corpus.split_of("dv-anything") == "dev"
    assert {corpus.split_of(f"so-{i:04d}") for i in range(200)} == set(corpus.SPLITS)


@pytest.mark.asyncio(loop_scope="module")
async def test_labels_are_known_and_numbers_exist(catalog: Catalog) -> None:
    symptom_ids = {s["id"] for s in await catalog.symptoms()}
    problems = []
    for item_id, item in _all_labelled():
        if item["intent"] not in INTENTS:
            problems.append(f"{item_id}: intent {item['intent']!r}")
        problems += [f"{item_id}: symptom {s}" for s in item["symptoms"] if s not in symptom_ids]
        for ps in item["parts"]:
            if await catalog.get_part(ps) is None:
                problems.append(f"{item_id}: part {ps}")
        for model in item["models"]:
            if (await catalog.find_model(model))["match"] is None:
                problems.append(f"{item_id}: model {model}")
        if "expect" in item and item["expect"].get("tool") not in TOOLS:
            problems.append(f"{item_id}: tool {item['expect'].get('tool')}")
    assert problems == []


@pytest.mark.asyncio(loop_scope="module")
async def test_every_intent_and_symptom_is_covered(catalog: Catalog) -> None:
    items = [i for _, i in _all_labelled()]
    assert {i["intent"] for i in items} == INTENTS
    covered = {s for i in items for s in i["symptoms"]}
    assert covered == {s["id"] for s in await catalog.symptoms()}


_LABELS = ("intent", "symptoms", "appliance", "parts", "models")


# Batches written apart, each by writers who saw neither the code nor the batches before.
BATCHES = (
    ("paraphrases", "pp"),
    ("paraphrases2", "pp2"),
    ("paraphrases3", "pp3"),
    ("paraphrases4", "pp4"),
    ("paraphrases5", "pp5"),
)


def _paraphrases(name: str, kind: str) -> list[dict]:  # type: ignore[type-arg]
    path = resources.files(corpus.PACKAGE_DATA).joinpath(f"{name}_{kind}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(("name", "prefix"), BATCHES)
def test_each_original_train_message_is_told_again_once_with_its_labels(
    name: str, prefix: str
) -> None:
    """``paraphrases*_messages.jsonl`` (proxies of the test split's distribution for
    ``bench/nlu_orig_cv.py``, never learnt): one per original train message, labels equal."""
    originals = {m["id"]: m for m in corpus.messages("train") if m["id"].startswith(("so-", "df-"))}
    told = _paraphrases(name, "messages")
    assert sorted(p["of"] for p in told) == sorted(originals)
    for p in told:
        original = originals[p["of"]]
        assert p["id"] == f"{prefix}-{p['of']}"
        assert {k: p[k] for k in _LABELS} == {k: original[k] for k in _LABELS}, p["id"]
        assert p["text"] != original["text"], p["id"]


@pytest.mark.parametrize(("name", "prefix"), BATCHES)
def test_each_original_train_dialogue_is_told_again_once_with_its_labels(
    name: str, prefix: str
) -> None:
    originals = {d["id"]: d for d in corpus.dialogues("train") if d["id"].startswith("dlg-")}
    told = _paraphrases(name, "dialogues")
    assert sorted(p["of"] for p in told) == sorted(originals)
    for p in told:
        turns = originals[p["of"]]["turns"]
        assert p["id"] == f"{prefix}-{p['of']}"
        assert len(p["turns"]) == len(turns), p["id"]
        for mine, theirs in zip(p["turns"], turns, strict=True):
            assert {k: v for k, v in mine.items() if k != "user"} == {
                k: v for k, v in theirs.items() if k != "user"
            }, p["id"]
        assert [t["user"] for t in p["turns"]] != [t["user"] for t in turns], p["id"]
