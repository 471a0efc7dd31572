"""Run a corpus dialogue through the agent graph and judge each turn against its labels.

A turn is right when its tool call matches ``expect`` (the tool's name, and each listed
argument: ``query`` as words the query contains, ``symptoms`` as the same set of labels,
``"@2"`` / ``"@name:pump"`` as the part the previous answer listed there, ``"@name:…"``
not in it as the one of the newest answer before that lists parts, anything else equal), its answer is grounded in its tool results, and it does not ask again for
something the conversation already gave. A dialogue succeeds when every turn is right and
its final answer does the job its last tool call was for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from partchat.nlu.corpus import Dialogue, Expect
from tests.support.agent_driver import Conversation, Turn, grounding_problems

_PS = re.compile(r"\bPS\d+\b")
_LIST_LINE = re.compile(r"^\s*\d+\.\s.*\bPS\d+", re.MULTILINE)
_BOLD = re.compile(r"\*\*(.+?)\*\*")
ASKS = {
    "model": "**model number**",
    "appliance": "**refrigerator** or a **dishwasher**",
    "part": "**part number**",
}


@dataclass
class DialogueResult:
    dialogue: Dialogue
    turns: list[Turn] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    reasked: list[str] = field(default_factory=list)
    ungrounded: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def describe(self) -> str:
        lines = [f"{self.dialogue['id']}:"]
        for spec, turn in zip(self.dialogue["turns"], self.turns, strict=False):
            lines.append(f"  user: {spec['user']!r}  expect {spec['expect']}")
            lines.append(f"    calls {turn.calls}")
            lines.append(f"    answer {turn.text[:160]!r}")
        lines += [f"  - {p}" for p in self.problems]
        return "\n".join(lines)


def _listed(answer: str) -> list[tuple[str, str]]:
    """(PS number, its line) in the order the answer lists them."""
    out: dict[str, str] = {}
    for line in answer.splitlines():
        for ps in _PS.findall(line):
            out.setdefault(ps, line.lower())
    return list(out.items())


def _resolve(value: Any, previous: str, last_list: str = "") -> Any:
    if not isinstance(value, str) or not value.startswith("@"):
        return value
    listed = _listed(previous)
    if value.startswith("@name:"):
        # the part whose name has the word ("@name:ice maker" is the *Ice Maker Assembly*,
        # not the *Water Inlet Valve* whose line gives "Ice maker not making ice" as the
        # reason it is listed); else the first whose line has it; after one part's details
        # that lack it, in the list before ("hmm no, the condenser fan motor one")
        word = value.removeprefix("@name:").lower()
        for answer in (listed, _listed(last_list)):
            names = [ps for ps, line in answer if word in " ".join(_BOLD.findall(line))]
            hits = names or [ps for ps, line in answer if word in line]
            if hits:
                return hits[0]
        return value
    n = int(value[1:])
    return listed[n - 1][0] if 0 < n <= len(listed) else value


def call_problems(
    expect: Expect,
    turn: Turn,
    previous_answer: str,
    labels: dict[str, str],
    last_list: str = "",
) -> list[str]:
    tool = expect.get("tool")
    if tool is None:
        problems = [f"expected no tool call, got {turn.calls}"] if turn.calls else []
        asks = expect.get("asks")
        if asks and ASKS[asks] not in turn.text:
            problems.append(f"expected a question for the {asks}, got {turn.text[:120]!r}")
        return problems
    if not turn.calls:
        return [f"expected {tool}, got no tool call: {turn.text[:120]!r}"]
    name, args = turn.calls[0]
    if name != tool:
        return [f"expected {tool}, got {name} {args}"]
    problems = []
    for key, want in (expect.get("args") or {}).items():
        got = args.get(key)
        if key == "query":
            words = str(want).lower().split()
            if not isinstance(got, str) or not all(w in got.lower() for w in words):
                problems.append(f"query {got!r} lacks {want!r}")
        elif key == "symptoms":
            wanted = {labels.get(s, s) for s in want}
            if not isinstance(got, list) or set(got) != wanted:
                problems.append(f"symptoms {got} != {sorted(wanted)}")
        else:
            want = _resolve(want, previous_answer, last_list)
            if str(got).upper() != str(want).upper():
                problems.append(f"{key} {got!r} != {want!r}")
    return problems


def reasked(turn: Turn, before: dict[str, Any]) -> list[str]:
    """Questions the answer asks that the context already answered. A model the turn
    itself set aside (the shopper turned to the other appliance) answers nothing about
    the new one."""
    out = []
    if (
        ASKS["model"] in turn.text
        and before.get("productModel")
        and turn.context.get("productModel")
        and "couldn't find model" not in turn.text
    ):
        out.append(f"asked for the model again (context has {before['productModel']})")
    if ASKS["appliance"] in turn.text and (
        before.get("applianceType") or before.get("productModel")
    ):
        out.append("asked for the appliance again")
    if ASKS["part"] in turn.text and before.get("partNumber") and turn.calls == []:
        out.append(f"asked for the part again (context has {before['partNumber']})")
    return out


# Every way the offline writer says a look-up found nothing (offline_writer: an unknown
# model, part or search; a recognised symptom with no listed parts for it).
_NO_RESULT = re.compile(r"couldn't find|found no listed parts", re.IGNORECASE)


def _found_nothing(turn: Turn) -> bool:
    """The turn's searches and diagnoses all came back empty (or failed), so an answer
    saying so is the honest one."""
    outputs = turn.outputs
    return not turn.tool_errors and all(
        not (o.get("candidates") or o.get("parts")) for o in outputs if isinstance(o, dict)
    )


def does_the_job(tool: str | None, turn: Turn) -> bool:
    """The final answer delivers what its tool call was for: the parts, or, when the
    catalog has none, an answer that says it found none."""
    text = turn.text
    if tool in ("search_parts", "diagnose_repair"):
        if _PS.search(text) or "couldn't find" in text.lower():
            return True
        return bool(_NO_RESULT.search(text)) and _found_nothing(turn)
    if tool == "get_part_details":
        return bool(_PS.search(text)) or "couldn't find" in text.lower()
    if tool == "check_compatibility":
        return bool(re.search(r"\bfits?\b|not listed|couldn't find", text, re.IGNORECASE))
    if tool == "get_installation_instructions":
        return "**Steps**" in text or "couldn't find" in text.lower()
    return bool(text.strip())


async def run_dialogue(graph: Any, dialogue: Dialogue, labels: dict[str, str]) -> DialogueResult:
    result = DialogueResult(dialogue)
    conv = Conversation(graph)
    previous = last_list = ""
    for spec in dialogue["turns"]:
        before = dict(conv.context)
        turn = await conv.say(spec["user"])
        result.turns.append(turn)
        for p in call_problems(spec["expect"], turn, previous, labels, last_list):
            result.problems.append(f"turn {len(result.turns)}: {p}")
        again = reasked(turn, before)
        result.reasked += again
        result.problems += [f"turn {len(result.turns)}: {p}" for p in again]
        grounding = grounding_problems(turn)
        result.ungrounded += grounding
        result.problems += [f"turn {len(result.turns)}: {p}" for p in grounding]
        if _LIST_LINE.search(previous):
            last_list = previous
        previous = turn.text
    last = dialogue["turns"][-1]["expect"]
    if result.turns and not does_the_job(last.get("tool"), result.turns[-1]):
        result.problems.append(f"final answer does not do the job: {result.turns[-1].text[:160]!r}")
    return result
