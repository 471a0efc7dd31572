"""The offline model's plan for a turn: which tool calls to make, or which text to say."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from partchat.agent import offline_writer as w
from partchat.agent.list_picks import THAT_ONE, newest_list_size, points_at_a_place
from partchat.agent.offline_reading import (
    _APPLIANCE_ONLY,
    _BRAND,
    _INSTALL,
    _NAMES_PARTS,
    _OF_THOSE,
    _PS,
    _YES,
    CONTINUES_KEY,
    INTENT_KEY,
    _context,
    _intent,
    _job_query,
    _previous_answer,
    _previous_user_text,
    _search_query,
    _value,
    part_arg_of,
)
from partchat.nlu import rules
from partchat.nlu.dialogue import JOBS, PAST_THE_END
from partchat.nlu.features import part_type_named


class _Plan:
    """Either tool calls to make, or text to say."""

    def __init__(self, text: str = "", calls: list[tuple[str, dict[str, Any]]] | None = None):
        self.text = text
        self.calls = calls or []


_STATED_PRICE = re.compile(r"\$\s?\d")


def plan_reply(messages: Sequence[BaseMessage], newest: HumanMessage) -> _Plan:
    text = newest.text.strip()
    ctx = _context(messages)
    model = _value(ctx, "appliance model")
    part = _value(ctx, "part number")
    appliance = _value(ctx, "appliance type")
    symptoms = [s for s in (_value(ctx, "symptoms") or "").split("; ") if s]
    unknown_model = _value(ctx, "unknown model")
    unknown_part = _value(ctx, "unknown part number")
    mentioned = _value(ctx, "part named in this message")
    this_turn_part = (
        _PS.search(text) is not None or unknown_part is not None or mentioned is not None
    )

    def price_checked(stated: bool, number_of: str | None) -> _Plan:
        """A price asserted with a part: the catalog's real figures (``number_of``: the
        part to look up, else the one named), else the refusal."""
        ps = _PS.search(text)
        named = ps.group(0).upper() if ps else (mentioned or unknown_part)
        if named and stated:
            number = number_of or named
            return _Plan(calls=[("get_part_details", _with_model({"partNumber": number}, model))])
        return _Plan(w.INJECTION)

    if rules.claims_a_price(text) or rules.INJECTION.found(text):
        # Quote the catalog's real figures instead of the asserted ones.
        return price_checked(
            rules.claims_a_price(text), part if part and not unknown_part else None
        )
    in_scope = rules.IN_SCOPE.search(text) is not None
    read = _value(ctx, INTENT_KEY)
    if read is not None:
        # The extract node's reading (partchat.nlu): a job, the job a bare answer
        # continues, or a message that needs no tool.
        if read == "injection":
            # "the website said AB-10234 costs $5, right?": the catalog's own figures
            stated = _STATED_PRICE.search(text) is not None and not unknown_part
            return price_checked(stated, None)
        if read in _CANNED:
            return _Plan(_CANNED[read])
        if read == PAST_THE_END:
            # (the extract node found the place past the end, by the catalog's numbers)
            return _Plan(w.past_the_end(newest_list_size(messages)))
        intent = read if read in JOBS else None
    else:
        canned = _canned_by_rules(text, in_scope)
        if canned is not None:
            return _Plan(canned)
        intent = _intent(text)
    if intent in (None, "install") and _YES.match(text):
        previous_answer = _previous_answer(messages, newest)
        if "installation steps" in previous_answer:
            if not part_arg_of(part, unknown_part) and _NAMES_PARTS.search(previous_answer):
                return _Plan(w.ASK_WHICH)
            intent = "install"
    if (
        not this_turn_part
        and THAT_ONE.match(text)
        and len(set(_PS.findall(_previous_answer(messages, newest)))) > 1
    ):
        return _Plan(w.ASK_WHICH_LISTED)  # "ok that one" after a list of several
    if intent in (None, "details") and w.ASK_WHICH in _previous_answer(messages, newest):
        intent = "install"  # "the first one" answers "Which one?" about installing
    if intent is None:
        # A bare answer ("it's WDT780SAEM1", "yes"): continue what the previous
        # message asked (the reading has done this already when there is one).
        if read is None:
            intent = _intent(_previous_user_text(messages, newest))
        if intent is None and this_turn_part:
            intent = "details"
    part_arg = unknown_part if unknown_part else part
    if unknown_model:
        name = unknown_model.split(" (", 1)[0]
        if intent == "compat" and part_arg and not unknown_part:
            # The tool reports the unknown model with the catalog's suggestions.
            return _Plan(calls=[("check_compatibility", {"partNumber": part_arg, "model": name})])
        offered = re.findall(r"[A-Z0-9./-]{3,}", unknown_model.split("(", 1)[-1])
        if intent == "diagnose" and (symptoms or appliance) and not offered:
            # A model the catalog lacks, not a typo of one: the usual fixes for the
            # appliance, and the answer says the model is not in the catalog.
            diag: dict[str, Any] = {"symptoms": (symptoms or [text[:200]])[:10], "model": name}
            if appliance:
                diag["appliance"] = appliance
            return _Plan(calls=[("diagnose_repair", diag)])
        if intent in ("compat", "diagnose", None):
            return _Plan(w.unknown_model(name, [s for s in offered if s != name]))

    if intent == "install":
        if not part_arg:
            query = _search_query(text) if part_type_named(text) else ""
            if query and (model or appliance):
                # "water inlet valve for 66512762K312, is it easy to install?": which part
                # is not known yet; the parts of that type (with their fit) come first
                args = _with_model({"query": query, "limit": 5}, model)
                if not model:
                    args["appliance"] = appliance
                return _Plan(calls=[("search_parts", args)])
            return _Plan(w.ask_part("you want to install"))
        args = _with_model({"partNumber": part_arg}, model)
        return _Plan(calls=[("get_installation_instructions", args)])
    if intent == "compat":
        if not part_arg:
            query = _search_query(text) if part_type_named(text) else _job_query(messages, newest)
            if model and query:
                # "does a drain pump fit 2213092N413", "and same part for my other fridge,
                # 2533111330A?" after a search: that part type for the model (the results
                # say what fits), not "which part?"
                query = " ".join(_BRAND.sub(" ", query).split())
                return _Plan(calls=[("search_parts", {"query": query, "limit": 5, "model": model})])
            return _Plan(w.ask_part("you want to check"))
        if unknown_part:
            return _Plan(calls=[("get_part_details", {"partNumber": unknown_part})])
        if not model:
            return _Plan(w.ask_model("so I can check the fit"))
        # "fits both? D1426DB1 and LDF7811BB01": each model named, in the order said
        models = [*(_value(ctx, "other models named in this message") or "").split(", "), model]
        return _Plan(
            calls=[
                ("check_compatibility", {"partNumber": part_arg, "model": m}) for m in models if m
            ]
        )
    if intent == "diagnose":
        if not model and not appliance:
            return _Plan(w.ask_appliance())
        wanted = symptoms or [text[:200]]
        diag = {"symptoms": wanted[:10]}
        if model:
            diag["model"] = model
        elif appliance:
            diag["appliance"] = appliance
        return _Plan(calls=[("diagnose_repair", diag)])
    if intent == "details" and part_arg:
        return _Plan(calls=[("get_part_details", _with_model({"partNumber": part_arg}, model))])
    if (
        intent in ("search", "details", None)
        and not this_turn_part
        and points_at_a_place(text)
        and not part_type_named(text)
    ):
        # "the second thing on your list - is that pricey" with no such place listed:
        # which part, not a search for "second thing"
        return _Plan(w.ask_part("you're asking about"))
    if intent == "search" or (intent in ("details", None) and (in_scope or model)):
        query = _search_query(text)
        if (
            (not query or _APPLIANCE_ONLY.match(query))
            and model
            and not this_turn_part
            and _NAMES_PARTS.search(_previous_answer(messages, newest))
        ):
            # "actually the model is 10641124210" after a list: that search again
            query = _search_query(_previous_user_text(messages, newest))
        elif (
            read == "search"
            and _value(ctx, CONTINUES_KEY)
            and (not part_type_named(text) or _ABOUT_THEM.search(text))
        ):
            # "actually make that 2533111530C, thats my moms fridge": the request it
            # continues names the part; so does one whose side question is about the
            # parts it asked for ("10672003012, do they come with the fill tube?")
            query = _job_query(messages, newest) or query
        elif (
            _OF_THOSE.search(text)
            and not part_type_named(text)
            and w.SEARCH_HEAD in _previous_answer(messages, newest)
        ):
            # "which of those goes on the bottom? the lower one" after a search's list:
            # the same parts, narrowed
            query = f"{_job_query(messages, newest)} {query}".strip()
        if model:
            query = " ".join(_BRAND.sub(" ", query).split())  # the model says the brand
        if query and not _APPLIANCE_ONLY.match(query):
            search: dict[str, Any] = {"query": query, "limit": 5}
            if model:
                search["model"] = model
            elif appliance:
                search["appliance"] = appliance
            return _Plan(calls=[("search_parts", search)])
        if model:
            return _Plan(w.noted_model(model))
        if appliance:
            return _Plan(w.ask_need(appliance))
    if intent == "details":
        return _Plan(w.ask_part("you're asking about"))
    return _Plan(w.HELP + "\n\nWhat would you like to do?")


_CANNED = {
    "greeting": w.GREETING,
    "thanks": w.THANKS,
    "decline": w.DECLINED,
    "no_model": w.NO_MODEL,
    "orders": w.ORDERS,
    "out_of_scope": w.OUT_OF_SCOPE,
}


# A question about the parts asked for before ("do they come with …", "are those …")
_ABOUT_THEM = re.compile(r"\b(do|does|did|will|would|are|is|can) (they|these|those|them)\b", re.I)


def _canned_by_rules(text: str, in_scope: bool) -> str | None:
    """Without a reading in the context (the model used on its own): the fixed answers
    by keyword."""
    if rules.GREETING.match(text):
        return w.GREETING
    if rules.THANKS.match(text):
        return w.THANKS
    if rules.ORDERS.found(text) and not _INSTALL.search(text):
        return w.ORDERS
    ours = rules.OUR_APPLIANCE.search(text) is not None or _PS.search(text) is not None
    other = rules.names_other_appliance(text) and not ours
    if other or (rules.CHITCHAT.found(text) and not in_scope):
        return w.OUT_OF_SCOPE
    return None


def _with_model(args: dict[str, Any], model: str | None) -> dict[str, Any]:
    return {**args, "model": model} if model else args
