"""The offline model's answers, written only from tool results (JSON) and the context.

Every part number, price, stock and fit claim in these texts is read from a tool
result; nothing here knows a part on its own.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from partchat.catalog.vocab import appliance_words

HELP = (
    "I can help with **refrigerator and dishwasher parts**:\n"
    "- find a part by name, number or model\n"
    "- check whether a part fits your model\n"
    '- diagnose a problem ("my dishwasher is not draining")\n'
    "- walk you through installing a part"
)

GREETING = f"Hi! I'm the parts assistant. {HELP}\n\nWhat can I help you with today?"

OUT_OF_SCOPE = (
    "Sorry, I can only help with refrigerator and dishwasher parts and repairs, so I can't "
    "help with that. I can find parts, check whether a part fits your model, diagnose a "
    "problem or explain how to install a part."
)

ORDERS = (
    "I can't see orders, deliveries or returns from here, sorry: the store's customer service "
    "team can help with those. I can help you find, check and install refrigerator and "
    "dishwasher parts."
)

# After the answer to a request that also asked about an order ("…, also how long does
# shipping usually take").
ORDERS_ASIDE = (
    "About your order or its delivery: I can't see those from here, but the store's "
    "customer service team can help."
)

INJECTION = (
    "I can't do that. I'm here to help with refrigerator and dishwasher parts: finding them, "
    "checking they fit your model, diagnosing problems and installing them. Prices and part "
    "details always come from the catalog."
)

PRICE_CLAIM = "I can only quote prices and part numbers from our catalog, so here is what it says."

SEARCH_HEAD = "Here's what I found"
ASK_WHICH_LISTED = (
    'Which one do you mean? Tell me its place in the list (for example "the second one") '
    "or its part number."
)
ASK_WHICH = (
    'Sure! Which one? Tell me its place in the list (for example "the first one") or its '
    "part number."
)

THANKS = "You're welcome! Anything else I can help with for your refrigerator or dishwasher?"
DECLINED = "No problem. Anything else I can help with for your refrigerator or dishwasher?"

MODEL_HINT = (
    "You'll usually find the model number on a sticker: inside the door or on the edge of "
    "the tub for a dishwasher, inside the fresh-food compartment for a refrigerator."
)

NO_MODEL = (
    f"No problem. {MODEL_HINT} Send me the **model number** when you have it and I'll "
    "show the parts that fit it."
)


def past_the_end(listed: int) -> str:
    """A place in a list beyond its end ("the 7th one" after five parts)."""
    if listed <= 1:
        return (
            'I only listed one part there: say "that one" for it, or tell me the name or '
            "part number of the part you're after."
        )
    return (
        f"I only listed {listed} parts there. Which one do you mean? Tell me its place in "
        f"the list (1 to {listed}), its name or its part number."
    )


def ask_model(purpose: str) -> str:
    return f"Could you tell me your appliance's **model number** {purpose}? {MODEL_HINT}"


def ask_part(purpose: str) -> str:
    return (
        f"Which part do you mean? Please give me the **part number** {purpose}: our part "
        "number (on our site or your order) or the manufacturer number printed on the part."
    )


def noted_model(model: str) -> str:
    return (
        f"Noted: your model is **{model}**. What can I do for it? Tell me the part you're "
        'looking for (for example "drain pump" or "door shelf bin"), a part number to check '
        'against it, or the problem you\'re having (for example "not draining").'
    )


def ask_need(appliance: str) -> str:
    return (
        f"Happy to help with your {appliance}. Are you looking for a specific part (tell me "
        "its name or number), or is something wrong with it (tell me what it's doing)? The "
        "model number helps me show only parts that fit. " + MODEL_HINT
    )


def ask_appliance() -> str:
    return (
        "Is this a **refrigerator** or a **dishwasher**? If you have the model number, share "
        f"it too and I'll only suggest parts that fit. {MODEL_HINT}"
    )


_SYMPTOM_EXAMPLES = {
    "refrigerator": "not cooling, too cold, leaking, noisy, frost build-up, ice maker not making ice",
    "dishwasher": "not draining, not cleaning, not drying, leaking, noisy, won't start",
}


def ask_symptom(appliance: str | None) -> str:
    what = appliance or "appliance"
    examples = _SYMPTOM_EXAMPLES.get(
        what, "not draining, leaking, noisy, not cooling, ice maker not making ice, won't start"
    )
    return (
        f"What exactly is your {what} doing? For example: {examples}. The more specific, the "
        "better I can narrow down the part."
    )


def unknown_model(model: str, suggestions: list[str]) -> str:
    text = f"I couldn't find model **{model}** in our catalog."
    if suggestions:
        text += " Did you mean " + " or ".join(f"**{s}**" for s in suggestions[:3]) + "?"
        text += " If not, please check the **model number** on the appliance's label."
    else:
        text += " Could you double-check it? " + MODEL_HINT
    return text


def unknown_model_note(model: str, suggestions: list[str]) -> str:
    text = f"I couldn't find model **{model}** in our catalog"
    if suggestions:
        text += " (did you mean " + " or ".join(f"**{s}**" for s in suggestions[:3]) + "?)"
    return text + ", so these are the usual fixes whatever the model.\n"


def _card_line(card: dict[str, Any], *, with_fit: bool = True) -> str:
    bits = [f"**{card['name']}** ({card['partNumber']})"]
    if card.get("price"):
        bits.append(card["price"])
    if card.get("availability"):
        bits.append(card["availability"])
    line = " · ".join(bits)
    if with_fit and card.get("fit") == "fits" and card.get("model"):
        line += f" · fits your {card['model']}"
    elif with_fit and card.get("fit") == "not_listed" and card.get("model"):
        line += f" · not listed for {card['model']}"
    return line


def _video(card: dict[str, Any]) -> str:
    return f"[Watch the installation video]({card['videoUrl']})" if card.get("videoUrl") else ""


def _effort(card: dict[str, Any]) -> str:
    parts = []
    if card.get("difficulty"):
        parts.append(f"difficulty: {card['difficulty']}")
    if card.get("installTime"):
        parts.append(f"time: {card['installTime']}")
    return ", ".join(parts)


def write_error(name: str, result: dict[str, Any], args: dict[str, Any]) -> str:
    error = result.get("error") or {}
    code = error.get("code")
    number = args.get("partNumber", "")
    if code == "unknown_part":
        return (
            f"I couldn't find part **{number}** in our catalog. Could you check the number? "
            "Our part number is on our site or your order; the manufacturer number is "
            "printed on the part itself."
        )
    if code == "timeout":
        return "The parts catalog is slow to answer right now. Please try again in a moment."
    return "I couldn't look that up just now. Please try again, or rephrase with the part or model number."


def write_install(result: dict[str, Any]) -> str:
    card, guide = result["part"], result["guide"]
    lines = [f"Here's how to install the {_card_line(card)}."]
    effort = _effort(card)
    if effort:
        lines.append(f"*{effort[0].upper()}{effort[1:]}.*")
    if guide["generic"]:
        lines.append(
            "I don't have a guide written for this exact part type, so these are our "
            "**general** replacement steps; the part's video shows the specifics."
        )
    if guide["safety"]:
        lines.append("\n**Safety first**")
        lines += [f"- {s}" for s in guide["safety"]]
    if guide["tools"]:
        lines.append("\n**Tools**: " + ", ".join(guide["tools"]))
    lines.append("\n**Steps**")
    lines += [f"{i}. {step}" for i, step in enumerate(guide["steps"], 1)]
    if guide["test"]:
        lines.append("\n**Test it**")
        lines += [f"- {t}" for t in guide["test"]]
    video = _video(card)
    if video:
        lines.append(f"\n{video}")
    if card.get("fit") == "not_listed" and card.get("model"):
        lines.append(
            f"\nNote: the catalog does not list this part for your {card['model']}. "
            "Please check the part number before you order."
        )
    return "\n".join(lines)


def _name(card: dict[str, Any]) -> str:
    return f"**{card['name']}** ({card['partNumber']})"


def _price_stock(card: dict[str, Any]) -> str:
    bits = [str(b) for b in (card.get("price"), card.get("availability")) if b]
    return " · ".join(bits)


@cache
def _appliance_names() -> dict[str, tuple[str, ...]]:
    """appliance → the words in a part's name that say it is for that appliance: its names
    and its parts, not the short forms and typos (a part's name is spelled out)."""
    names: dict[str, tuple[str, ...]] = {}
    for word, app in appliance_words(("name", "compartment", "part")):
        names[app] = (*names.get(app, ()), word)
    return names


def _other_appliance(card: dict[str, Any], appliance: str | None) -> str | None:
    """The other appliance when the part's own name says it is for that one."""
    name = str(card.get("name") or "").lower()
    for other, words in _appliance_names().items():
        if other != appliance and appliance and any(word in name for word in words):
            return other
    return None


def _yours(result: dict[str, Any]) -> str:
    """'your **MODEL** (Brand appliance)' of a fit check's result."""
    info = result.get("modelInfo") or {}
    what = " ".join(str(x) for x in (info.get("brand"), info.get("appliance")) if x)
    return f"your **{result['model']}**" + (f" ({what})" if what else "")


def _fit_source(result: dict[str, Any]) -> str:
    return (
        "your model's full parts list"
        if result.get("evidence") == "model_page"
        else "the part's list of compatible models"
    )


def write_compatibility(result: dict[str, Any]) -> str:
    status, card, model = result["status"], result.get("part"), result["model"]
    info = result.get("modelInfo") or {}
    if status == "unknown_part":
        return write_error(
            "check_compatibility",
            {"error": {"code": "unknown_part"}},
            {"partNumber": result["partNumber"]},
        )
    if status == "unknown_model":
        text = unknown_model(model, result.get("suggestions") or [])
        if card is not None:
            text += f" Once I have the right model I'll check the {_name(card)} against it."
        return text
    assert card is not None
    yours = _yours(result)
    if status == "fits":
        lines = [f"Yes! The {_name(card)} fits {yours}."]
        lines.append(f"Source: {_fit_source(result)}.")
        offer = _price_stock(card)
        if offer:
            lines.append(f"It's {offer}.")
        text = " ".join(lines)
        video = _video(card)
        if video:
            text += f"\n\n{video}"
        return text + "\n\nWant the installation steps?"
    text = f"The catalog does **not** list the {_name(card)} for {yours}."
    other = _other_appliance(card, info.get("appliance"))
    if other:
        text += (
            f" It's a {other} part and your model is a {info['appliance']}, so it almost "
            "certainly won't fit."
        )
    elif result.get("evidence") == "model_page":
        text += " That list is your model's complete parts list, so it most likely does not fit."
    else:
        text += (
            " Its list of compatible models is not complete, so this is not proof it can't "
            "fit, but I can't confirm it."
        )
    text += (
        " Tell me what the part does or what's wrong, and I'll search for the matching part "
        "for your model."
    )
    return text


def write_details(result: dict[str, Any]) -> str:
    card = result["part"]
    lines = [_card_line(card)]
    if card.get("mfrNumber"):
        lines.append(f"- Manufacturer part number: {card['mfrNumber']}")
    if card.get("brand") or card.get("partType"):
        lines.append(
            "- " + " · ".join(str(x) for x in (card.get("brand"), card.get("partType")) if x)
        )
    effort = _effort(card)
    if effort:
        lines.append(f"- Installation {effort}")
    if card.get("rating") is not None and card.get("reviewCount"):
        lines.append(f"- {card['rating']}% positive from {card['reviewCount']} reviews")
    if result.get("symptoms"):
        lines.append("- Fixes: " + ", ".join(result["symptoms"][:6]))
    if result.get("replaces"):
        lines.append("- Replaces: " + ", ".join(result["replaces"][:6]))
    video = _video(card)
    if video:
        lines.append(f"- {video}")
    if card.get("fit") is not None:
        lines.append("\nWant the installation steps?")
    else:
        lines.append("\nWant me to check whether it fits your model, or explain how to install it?")
    return "\n".join(lines)


def write_search(result: dict[str, Any]) -> str:
    parts = result["parts"]
    if not parts:
        where = f" for model {result['model']}" if result.get("model") else ""
        return (
            f'I couldn\'t find parts matching "{result["query"]}"{where}. Could you describe it '
            "differently, or give me the part number?"
        )
    head = SEARCH_HEAD
    if result.get("model"):
        head += f" for your {result['model']}"
    lines = [head + ":"]
    lines += [f"{i}. {_card_line(card)}" for i, card in enumerate(parts, 1)]
    lines.append("\nWould you like details, a fit check or installation steps for one of these?")
    return "\n".join(lines)


def write_diagnosis(result: dict[str, Any]) -> str:
    appliance = result.get("appliance") or "appliance"
    symptoms = result.get("symptoms") or []
    candidates = result.get("candidates") or []
    if not symptoms:
        return ask_symptom(result.get("appliance"))
    label = ", ".join(f"*{s}*" for s in symptoms)
    guides = result.get("guides") or []
    if not candidates:
        text = f"I recognise {label} on your {appliance}, but I found no listed parts"
        if result.get("model"):
            text += f" for model {result['model']}"
        text += " in our catalog."
        types = list(dict.fromkeys(t for g in guides for t in g.get("partTypes") or []))
        if types:
            text += " The usual causes are: " + ", ".join(types[:6]) + "."
        videos = [g["videoUrl"] for g in guides if g.get("videoUrl")]
        if videos:
            text += f"\n\n[Troubleshooting video]({videos[0]})"
        return text + "\n\nIf you know the part number, I can check it against your model."
    where = f"your {result['model']}" if result.get("model") else f"a {appliance}"
    lines = [f"For {label} on {where}, these parts are the usual fix, most likely first:"]
    info = result.get("modelInfo") or {}
    if info.get("model") and info.get("known") is False:
        # "whirlpool WRS325SDHZ" the catalog lacks: the usual fixes for any such appliance
        lines.insert(0, unknown_model_note(str(info["model"]), info.get("suggestions") or []))
    for i, c in enumerate(candidates[:5], 1):
        lines.append(f"{i}. {_card_line(c['part'])}: {c['reason']}")
    videos = [g["videoUrl"] for g in guides if g.get("videoUrl")]
    if videos:
        lines.append(f"\n[Troubleshooting video]({videos[0]})")
    if result.get("needsModel"):
        lines.append("\n" + ask_model("so I can show only the parts that fit"))
    else:
        lines.append("\nWant installation steps for one of these?")
    return "\n".join(lines)


WRITERS = {
    "get_installation_instructions": write_install,
    "check_compatibility": write_compatibility,
    "get_part_details": write_details,
    "search_parts": write_search,
    "diagnose_repair": write_diagnosis,
}


def write_extraction(result: dict[str, Any]) -> str:
    bits = []
    if result.get("partNumbers"):
        bits.append("part numbers " + ", ".join(result["partNumbers"]))
    models = result.get("models") or []
    if models:
        bits.append("models " + ", ".join(m["model"] for m in models))
    if result.get("symptoms"):
        bits.append("symptoms " + ", ".join(result["symptoms"]))
    return (
        ("I noted " + "; ".join(bits) + ".") if bits else "I found no part or model numbers there."
    )


def write_compatibilities(results: list[dict[str, Any]]) -> str:
    """One part checked against several models ("fits both? D1426DB1 and LDF7811BB01"):
    the part once, then a line a model."""
    card = results[0]["part"]
    offer = _price_stock(card)
    lines = [f"The {_name(card)}" + (f" · {offer}" if offer else "") + ":"]
    for result in results:
        yours = _yours(result)
        if result["status"] == "fits":
            lines.append(f"- **fits** {yours}, by {_fit_source(result)}")
        elif result.get("evidence") == "model_page":
            lines.append(
                f"- is **not** on {yours}'s complete parts list: it most likely does not fit"
            )
        else:
            lines.append(
                f"- is **not listed** for {yours}: the part's list is not complete, so I can't confirm it"
            )
    text = "\n".join(lines)
    if any(r["status"] == "fits" for r in results):
        video = _video(card)
        text += (f"\n\n{video}" if video else "") + "\n\nWant the installation steps?"
    return text


def _several_fits(results: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> bool:
    """Every result is a fit check of the same known part and model, two or more."""
    checks = [r for name, _, r in results if name == "check_compatibility" and r.get("ok")]
    return (
        len(checks) == len(results) > 1
        and all(r["status"] in ("fits", "not_listed") and r.get("part") for r in checks)
        and len({r["part"]["partNumber"] for r in checks}) == 1
    )


def write_answer(results: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> str:
    """One answer from this round's (tool name, arguments, result) triples."""
    if _several_fits(results):
        return write_compatibilities([r for _, _, r in results])
    texts = []
    for name, args, result in results:
        if not result.get("ok"):
            texts.append(write_error(name, result, args))
        elif name == "extract_information":
            texts.append(write_extraction(result))
        else:
            texts.append(WRITERS[name](result))
    return "\n\n".join(dict.fromkeys(texts))
