"""Catalog records → the camelCase shapes tools return and the UI renders (PartCard)."""

from __future__ import annotations

from typing import Any

from partchat.catalog.types import FitStatus, InstallGuide, ModelLookup, Part, RepairGuide

_OUT_OF_STOCK = ("no longer", "discontinued", "not available", "out of stock", "unavailable")


def format_price(cents: int | None) -> str | None:
    if cents is None:
        return None
    return f"${cents // 100:,}.{cents % 100:02d}"


def in_stock(availability: str | None) -> bool:
    if not availability:
        return False
    low = availability.lower()
    return "in stock" in low and not any(word in low for word in _OUT_OF_STOCK)


def part_card(
    part: Part, *, fit: FitStatus | None = None, model: str | None = None
) -> dict[str, Any]:
    video = part["video_url"]
    return {
        "partNumber": part["ps_number"],
        "mfrNumber": part["mfr_number"],
        "name": part["name"],
        "brand": part["brand"],
        "partType": part["part_type"],
        "priceCents": part["price_cents"],
        "price": format_price(part["price_cents"]),
        "availability": part["availability"],
        "inStock": in_stock(part["availability"]),
        "videoUrl": video if video and video.startswith("https://") else None,
        "difficulty": part["difficulty"],
        "installTime": part["install_time"],
        "rating": part["rating_pct"],
        "reviewCount": part["review_count"],
        "fit": fit,
        "model": model if fit is not None else None,
    }


def model_ref(lookup: ModelLookup) -> dict[str, Any]:
    match = lookup["match"]
    return {
        "model": match["model_number"] if match else lookup["normalized"],
        "known": match is not None,
        "brand": match["brand"] if match else None,
        "appliance": match["appliance"] if match else None,
        "suggestions": [] if match else lookup["suggestions"][:5],
    }


def guide_dict(guide: InstallGuide) -> dict[str, Any]:
    return {
        "title": guide["title"],
        "generic": guide["generic"],
        "partType": guide["part_type"],
        "safety": list(guide["safety"]),
        "tools": list(guide["tools"]),
        "steps": list(guide["steps"]),
        "test": list(guide["test"]),
    }


def repair_guide_dict(guide: RepairGuide) -> dict[str, Any]:
    return {
        "symptom": guide["symptom"],
        "partTypes": list(guide["part_types"]),
        "reportedPct": guide["reported_pct"],
        "difficulty": guide["difficulty"],
        "videoUrl": guide["video_url"],
    }
