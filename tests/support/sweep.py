"""The originals' dialogue path swept over the catalog: a list, a pick, a follow-up.

The corpus's dialogues visit a few hundred of the catalog's models; a shopper brings any.
The sweep takes models at random (seeded) for each symptom of the vocabulary, opens with
that problem (``diagnose``) or with a part type the model has (``search``), then picks
every listed part by its place ("the second one", "2") and by what a shopper would call
it, alone, inside a question or a choice (``NAME_ASKED``: "what about the mounting
screw", "ok lets go with the install kit") and beside another listed part it is not
(``NAME_DENIED``: "the assembly not just the nut"), and after a pick by name asks for its steps,
its fit with another model and its stock; after the second part picked by its place, its
price, its fit with another model and its fitting, in words that name no part.
Each turn is judged on its tool call alone: the tool and the part (and model) it is for.

What a shopper calls a listed part is a span of one to three words of its name that ends
in a word of the catalog's part-type vocabulary ("the drain pump", "the pump", "the hinge
washer") and that no part listed before it has all the words of (as words or within words: "wheels"
has "wheel"): the first listed part so named is the one meant, as the corpus's ``@name:``
labels say. Models are those of six characters or more with over 20 parts listed.

The second path starts from a part's number: random parts with a manufacturer number and
a model each fits (seeded), asked after in the ways shoppers type a number they read off
the old part (``ASKED_OF_A_NUMBER``), each in a new conversation, and after its details
its fit, its steps and its stock. The corpus gives a few hundred of the catalog's 8,552
documented parts; their numbers come in every maker's shape ("WPW10195416", "241798231",
"DD67-00113B", "978029").
"""

from __future__ import annotations

import copy
import random
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from partchat.catalog.vocab import part_type_keywords
from tests.support.agent_driver import Conversation, Turn
from tests.support.dialogues import _BOLD, _listed

ORDINALS = ("first", "second", "third", "fourth", "fifth")
PATHS = ("diagnose", "search")
# (kind, what is said, the tool, whether the model is said): {mpn} the manufacturer's
# number, {low} it typed in lower case, {ps} ours, {model} a model the part fits
ASKED_OF_A_NUMBER = (
    ("stock", "do you have {mpn}", "get_part_details", False),
    ("stock", "anyone carry {low}?", "get_part_details", False),
    ("price", "{mpn} price?", "get_part_details", False),
    ("price", "hi, whats the price of part {mpn}", "get_part_details", False),
    ("about", "whats {mpn} for", "get_part_details", False),
    ("fit", "does {mpn} fit my {model}", "check_compatibility", True),
    ("fit", "{mpn} for {model}?", "check_compatibility", True),
    ("fit", "{model} - will part {mpn} work", "check_compatibility", True),
    ("fit", "is {ps} compatible with {model}?", "check_compatibility", True),
    ("install", "how do i install {mpn}", "get_installation_instructions", False),
    (
        "install",
        "got {mpn} for my {model}, how do i put it in",
        "get_installation_instructions",
        True,
    ),
)
# The model given when the diagnosis of an appliance lists any model's parts, in the ways
# shoppers type what they read off the sticker ({model} as printed, {low} in lower case)
MODEL_REPLIES = ("its a {model}", "{low}", "model is {low}", "the sticker says {model}")
ASKED_AFTER_DETAILS = (
    ("does it fit {model}", "check_compatibility", True),
    ("how do i put it in", "get_installation_instructions", False),
    ("is it in stock", "get_part_details", False),
)
# A listed part named inside a question or a choice ("the mounting screw" is no fitting)
NAME_ASKED = (
    "what about the {name}",
    "how much is the {name}",
    "show me the {name} pls",
    "ok lets go with the {name}",
    "is the {name} in stock?",
)
# A listed part named beside another it is not ("the assembly not just the nut")
NAME_DENIED = (
    "the {name} not just the {other}",
    "the {name}, not the {other}",
    "not the {other}, the {name}",
    "the {name} one not the {other} one",
)
_WORD = re.compile(r"[a-z]+")
_APPLIANCE_WORDS = frozenset({"dishwasher", "refrigerator", "fridge", "freezer"})


@dataclass(frozen=True)
class Judged:
    kind: str
    """``open``, ``place``, ``name``, ``name asked`` (the name in a question), ``name
    denied`` (beside another listed part it is not) or ``follow-up``; on the number path the kind of
    question (``stock``, ``price``, ``about``, ``fit``, ``install``) or ``follow-up``."""
    said: str
    want: tuple[str, str | None, str | None]
    """(tool, part number, model): None where any is right."""
    got: tuple[str, dict[str, Any]] | None

    @property
    def ok(self) -> bool:
        tool, part, model = self.want
        if self.got is None:
            return False
        name, args = self.got
        return (
            name == tool
            and (part is None or args.get("partNumber") == part)
            and (model is None or args.get("model") == model)
        )


@dataclass
class Situation:
    path: str
    model: str
    opening: str
    listed: list[tuple[str, str]] = field(default_factory=list)
    judged: list[Judged] = field(default_factory=list)


@cache
def _type_words() -> frozenset[str]:
    """The last word of each part-type keyword ("pump" of "drain pump")."""
    return frozenset(k.split()[-1] for k, _ in part_type_keywords())


def names_for(names: list[str], i: int) -> list[str]:
    """What a shopper may call the ``i``-th of the listed ``names`` (lower case)."""
    words = _WORD.findall(names[i])
    heads = _type_words()
    out = []
    for n in (1, 2, 3):
        for j in range(len(words) - n + 1):
            span = words[j : j + n]
            if span[-1] not in heads or span[0] in ("and", "with", "of", "for"):
                continue
            if set(span) <= _APPLIANCE_WORDS or len(" ".join(span)) < 4:
                continue
            if any(all(w in names[k] for w in span) for k in range(i)):
                continue  # a part listed before has each word (or its plural): that one
            out.append(" ".join(span))
    return sorted(set(out))


def _denied_beside(names: list[str], spans: list[list[str]], i: int) -> list[str]:
    """What a shopper may call the next listed part when saying the ``i``-th is not it
    (``spans``: each name's, ``names_for``): a span with no word of the ``i``-th's name."""
    if not spans[i] or len(names) < 2:
        return []
    mine = set(_WORD.findall(names[i]))
    others = [o for o in spans[(i + 1) % len(names)] if not mine & set(_WORD.findall(o))]
    return others[:1]


def situations(
    db: Path, *, per: int, seed: int, paths: Iterable[str] = PATHS
) -> list[tuple[str, str, str, str, str]]:
    """(path, model, appliance, what the opening asks about, another model of the
    appliance) for ``per`` random models of each symptom (a symptom label, or for
    ``search`` a part type the model has)."""
    rnd = random.Random(seed)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        symptoms = conn.execute("SELECT appliance, label FROM symptoms ORDER BY id").fetchall()
        out = []
        for appliance, label in symptoms:
            models = [
                m
                for (m,) in conn.execute(
                    "SELECT model_number FROM models WHERE appliance = ? AND part_count > 20"
                    " AND length(model_number) >= 6"
                    " ORDER BY model_number",
                    (appliance,),
                )
            ]
            for model in rnd.sample(models, min(per, len(models))):
                other = rnd.choice(models)
                for path in paths:
                    if path == "diagnose":
                        out.append((path, model, appliance, label.lower(), other))
                        continue
                    types = [
                        t
                        for (t,) in conn.execute(
                            "SELECT DISTINCT p.part_type FROM compat c"
                            " JOIN parts p ON p.id = c.part_id JOIN models m ON m.id = c.model_id"
                            " WHERE m.model_number = ? AND p.part_type IS NOT NULL AND p.details"
                            " ORDER BY 1",
                            (model,),
                        )
                    ]
                    if types:
                        out.append((path, model, appliance, rnd.choice(types).lower(), other))
    return out


def _call(turn: Turn) -> tuple[str, dict[str, Any]] | None:
    return turn.calls[0] if turn.calls else None


def _fork(conv: Conversation) -> Conversation:
    forked = Conversation(conv.graph, copy.deepcopy(conv.context))
    forked.history = list(conv.history)
    return forked


async def run_situation(
    graph: Any, path: str, model: str, appliance: str, topic: str, other_model: str
) -> Situation:
    opening = (
        f"my {appliance} {model}: {topic}"
        if path == "diagnose"
        else f"do you have a {topic} for my {model}"
    )
    found = Situation(path, model, opening)
    conv = Conversation(graph)
    first = await conv.say(opening)
    tool = "diagnose_repair" if path == "diagnose" else "search_parts"
    found.judged.append(Judged("open", opening, (tool, None, model), _call(first)))
    if not found.judged[-1].ok:
        return found
    found.listed = _listed(first.text)
    names = [" ".join(_BOLD.findall(line)).lower() for _, line in found.listed]
    all_spans = [names_for(names, k) for k in range(len(names))]
    for i, (ps, _) in enumerate(found.listed):
        picks = [("place", f"the {ORDINALS[i]} one"), ("place", str(i + 1))] if i < 5 else []
        spans = all_spans[i]
        picks += [("name", f"the {name}") for name in spans]
        picks += [
            ("name asked", NAME_ASKED[(i + k) % len(NAME_ASKED)].format(name=name))
            for k, name in enumerate(spans)
        ]
        picks += [
            ("name denied", NAME_DENIED[i % len(NAME_DENIED)].format(name=spans[0], other=other))
            for other in _denied_beside(names, all_spans, i)
        ]
        for kind, said in picks:
            picked = _fork(conv)
            turn = await picked.say(said)
            judged = Judged(kind, said, ("get_part_details", ps, None), _call(turn))
            found.judged.append(judged)
            if kind == "place" and i == 1 and said.startswith("the ") and judged.ok:
                # the second part picked by its place, then what a shopper asks of it
                # naming nothing (not the best match of a search two answers back)
                for asked, want in (
                    ("whats the price", ("get_part_details", ps, None)),
                    (f"and for my {other_model}?", ("check_compatibility", ps, other_model)),
                    ("is it hard to swap", ("get_installation_instructions", ps, None)),
                ):  # fmt: skip
                    turn = await _fork(picked).say(asked)
                    found.judged.append(Judged("follow-up", f"{said} / {asked}", want, _call(turn)))
            if kind != "name" or not judged.ok:
                continue
            name = said.removeprefix("the ")
            for asked, want in (
                (f"ok how do i put the {name} in", ("get_installation_instructions", ps, None)),
                (f"would the {name} also fit {other_model}", ("check_compatibility", ps, other_model)),
                ("is it in stock? how hard is it to install", ("get_installation_instructions", ps, None)),
            ):  # fmt: skip
                turn = await _fork(picked).say(asked)
                found.judged.append(Judged("follow-up", f"{said} / {asked}", want, _call(turn)))
    return found


def brands(db: Path, models: Iterable[str]) -> dict[str, str]:
    """Each model's brand, as the catalog writes it."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return {
            m: b
            for m in models
            for (b,) in conn.execute("SELECT brand FROM models WHERE model_number = ?", (m,))
        }


async def run_model_given(
    graph: Any, model: str, brand: str, appliance: str, topic: str, reply: str
) -> Situation:
    """A problem told with the brand and the appliance only, then the model in ``reply``
    (a ``MODEL_REPLIES`` template) once any model's parts are listed, then the second
    listed part, and a yes to its steps when they are offered."""
    opening = f"my {brand} {appliance}: {topic}"
    found = Situation("model given", model, opening)
    conv = Conversation(graph)
    first = await conv.say(opening)
    found.judged.append(Judged("open", opening, ("diagnose_repair", None, None), _call(first)))
    said = reply.format(model=model, low=model.lower())
    turn = await conv.say(said)
    found.judged.append(Judged("model", said, ("diagnose_repair", None, model), _call(turn)))
    listed = _listed(turn.text)
    if not found.judged[-1].ok or len(listed) < 2:
        return found
    ps = listed[1][0]
    turn = await conv.say("the 2nd one")
    found.judged.append(
        Judged("place", "the 2nd one", ("get_part_details", ps, model), _call(turn))
    )
    if "installation steps?" in turn.text:
        turn = await conv.say("yes please")
        want = ("get_installation_instructions", ps, model)
        found.judged.append(Judged("yes", "yes please", want, _call(turn)))
    return found


def tally(found: Iterable[Situation]) -> dict[str, dict[str, int]]:
    """Turns judged and right, by path and kind of turn."""
    seen: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for s in found:
        for j in s.judged:
            key = f"{s.path} {j.kind}"
            seen[key] += 1
            right[key] += j.ok
    return {k: {"turns": seen[k], "right": right[k]} for k in sorted(seen)}


def given_parts(db: Path, *, count: int, seed: int) -> list[tuple[str, str, str]]:
    """(our number, the manufacturer's, a model it fits) for ``count`` random documented
    parts, one model each (of six characters or more, as the lists' models)."""
    rnd = random.Random(seed)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT p.ps_number, p.mfr_number, min(m.model_number) FROM parts p"
            " JOIN compat c ON c.part_id = p.id JOIN models m ON m.id = c.model_id"
            " WHERE p.details AND p.mfr_number <> '' AND length(m.model_number) >= 6"
            " GROUP BY p.id ORDER BY p.id"
        ).fetchall()
    return [tuple(r) for r in rnd.sample(rows, min(count, len(rows)))]


async def run_given_part(graph: Any, ps: str, mfr: str, model: str) -> Situation:
    """The part asked after by its number in each of the ways of ``ASKED_OF_A_NUMBER``,
    then, after its details, each of ``ASKED_AFTER_DETAILS``."""
    found = Situation("number", model, mfr)
    # (a number of letters only is typed in capitals: "rpwfe" is a word)
    low = mfr.lower() if any(c.isdigit() for c in mfr) else mfr
    said_of = {"mpn": mfr, "low": low, "ps": ps, "model": model}
    for kind, template, tool, with_model in ASKED_OF_A_NUMBER:
        said = template.format(**said_of)
        turn = await Conversation(graph).say(said)
        want = (tool, ps, model if with_model else None)
        found.judged.append(Judged(kind, said, want, _call(turn)))
    conv = Conversation(graph)
    opening = f"tell me about {mfr}"
    first = await conv.say(opening)
    found.judged.append(Judged("about", opening, ("get_part_details", ps, None), _call(first)))
    if found.judged[-1].ok:
        for template, tool, with_model in ASKED_AFTER_DETAILS:
            said = template.format(**said_of)
            turn = await _fork(conv).say(said)
            want = (tool, ps, model if with_model else None)
            found.judged.append(Judged("follow-up", f"{opening} / {said}", want, _call(turn)))
    return found
