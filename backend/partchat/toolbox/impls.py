"""The six tools, over the catalog. Input arrives already validated against its contract.

A tool returns its ``ok: true`` payload, or raises ``ToolFailure`` for an expected
failure the model should hear about (an unknown part number, say); the toolbox turns
both into results and anything else into an ``internal`` error result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from partchat.catalog.types import Appliance, CatalogReader, FitStatus, ModelLookup
from partchat.nlu.extraction import extract
from partchat.toolbox.cards import guide_dict, model_ref, part_card, repair_guide_dict

ToolImpl = Callable[[CatalogReader, dict[str, Any]], Awaitable[dict[str, Any]]]


class ToolFailure(Exception):
    """An expected failure, reported to the model as ``{"ok": false, "error": …}``."""

    def __init__(self, code: str, message: str, path: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path


def _unknown_part(number: str) -> ToolFailure:
    return ToolFailure(
        "unknown_part",
        f"No part numbered {number} in the catalog. Ask the shopper to check the number "
        "(the store's part number, or the manufacturer number printed on the part).",
        "/partNumber",
    )


async def _fit(
    catalog: CatalogReader, part_number: str, model: str | None
) -> tuple[FitStatus | None, str | None]:
    """(fit status, the model's canonical number) for one part; (None, None) without a model."""
    if not model:
        return None, None
    compat = await catalog.compatibility(part_number, model)
    if compat["model"] is not None:
        return compat["status"], compat["model"]["model_number"]
    return compat["status"], (await catalog.find_model(model))["normalized"]


async def search_parts(catalog: CatalogReader, args: dict[str, Any]) -> dict[str, Any]:
    query: str = args["query"]
    model: str | None = args.get("model")
    appliance = cast(Appliance | None, args.get("appliance"))
    limit = int(args.get("limit", 5))  # JSON Schema lets 5.0 through as an integer
    hits = await catalog.search(query, model=model, appliance=appliance, limit=limit)
    parts = []
    model_name: str | None = None
    if model:
        lookup = await catalog.find_model(model)
        model_name = lookup["match"]["model_number"] if lookup["match"] else lookup["normalized"]
    for hit in hits:
        status, _ = await _fit(catalog, hit["part"]["ps_number"], model)
        parts.append(part_card(hit["part"], fit=status, model=model_name))
    return {"ok": True, "query": query, "model": model_name, "parts": parts}


async def check_compatibility(catalog: CatalogReader, args: dict[str, Any]) -> dict[str, Any]:
    number: str = args["partNumber"]
    model: str = args["model"]
    compat = await catalog.compatibility(number, model)
    lookup = await catalog.find_model(model)
    part = compat["part"]
    model_name = compat["model"]["model_number"] if compat["model"] else lookup["normalized"]
    result: dict[str, Any] = {
        "ok": True,
        "status": compat["status"],
        "evidence": compat["evidence"],
        "partNumber": part["ps_number"] if part else number,
        "model": model_name,
        "modelInfo": model_ref(lookup),
        "part": part_card(part, fit=compat["status"], model=model_name) if part else None,
        "suggestions": lookup["suggestions"][:5] if compat["status"] == "unknown_model" else [],
    }
    return result


async def diagnose_repair(catalog: CatalogReader, args: dict[str, Any]) -> dict[str, Any]:
    symptoms: list[str] = args["symptoms"]
    model: str | None = args.get("model")
    appliance = cast(Appliance | None, args.get("appliance"))
    lookup: ModelLookup | None = None
    model_name: str | None = None
    if model:
        lookup = await catalog.find_model(model)
        if lookup["match"] is not None:
            model_name = lookup["match"]["model_number"]
            appliance = appliance or lookup["match"]["appliance"]
    diagnosis = await catalog.diagnose(appliance, symptoms, model=model_name, limit=8)
    result: dict[str, Any] = {
        "ok": True,
        "appliance": diagnosis["appliance"],
        "model": model_name,
        "symptoms": diagnosis["symptoms"],
        "unrecognised": diagnosis["unrecognised"],
        "needsModel": model_name is None,
        "candidates": [
            {
                "part": part_card(c["part"], fit=c["fits"], model=model_name),
                "reason": c["reason"],
            }
            for c in diagnosis["candidates"]
        ],
        "guides": [repair_guide_dict(g) for g in diagnosis["guides"]],
    }
    if lookup is not None:
        result["modelInfo"] = model_ref(lookup)
    return result


async def get_installation_instructions(
    catalog: CatalogReader, args: dict[str, Any]
) -> dict[str, Any]:
    number: str = args["partNumber"]
    part = await catalog.get_part(number)
    if part is None:
        raise _unknown_part(number)
    status, model_name = await _fit(catalog, part["ps_number"], args.get("model"))
    guide = await catalog.install_guide(part["part_type"])
    card = part_card(part, fit=status, model=model_name)
    return {"ok": True, "part": card, "guide": guide_dict(guide), "videoUrl": card["videoUrl"]}


async def get_part_details(catalog: CatalogReader, args: dict[str, Any]) -> dict[str, Any]:
    number: str = args["partNumber"]
    part = await catalog.get_part(number)
    if part is None:
        raise _unknown_part(number)
    status, model_name = await _fit(catalog, part["ps_number"], args.get("model"))
    return {
        "ok": True,
        "part": part_card(part, fit=status, model=model_name),
        "replaces": list(part["replaces"]),
        "symptoms": list(part["symptoms"]),
        "appliances": list(part["appliances"]),
    }


async def extract_information(catalog: CatalogReader, args: dict[str, Any]) -> dict[str, Any]:
    found = await extract(args["text"], catalog)
    return {
        "ok": True,
        "partNumbers": found["part_numbers"],
        "unknownPartNumbers": found["unknown_part_numbers"],
        "models": [dict(m) for m in found["models"]],
        "symptoms": found["symptoms"],
        "appliance": found["appliance"],
    }


IMPLEMENTATIONS: dict[str, ToolImpl] = {
    "search_parts": search_parts,
    "check_compatibility": check_compatibility,
    "diagnose_repair": diagnose_repair,
    "get_installation_instructions": get_installation_instructions,
    "get_part_details": get_part_details,
    "extract_information": extract_information,
}
