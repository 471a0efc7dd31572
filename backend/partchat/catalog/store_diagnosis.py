"""Catalog symptom queries: recognised symptoms and a diagnosis's candidate parts."""

from __future__ import annotations

from typing import Any, cast

from .normalize import safe_user_text
from .schema import APP_BITS
from .store_core import NCOLS, PART_COLS, CatalogCore, part_from_row
from .types import (
    Appliance,
    Diagnosis,
    DiagnosisCandidate,
    FitStatus,
    Symptom,
)

_ORDINALS = ("most common", "2nd most common", "3rd most common")
_APP_PLURAL = {"dishwasher": "dishwashers", "refrigerator": "refrigerators"}


def _by_symptom_pos(row: Any) -> tuple[bool, int, int]:
    """A model's parts for a symptom: those listing it first, in its order (the ``s.pos``
    column), then popularity (``p.pop_rank``)."""
    return (row[NCOLS] is None, row[NCOLS] or 0, row[17])


class SymptomQueries(CatalogCore):
    """Symptoms recognised, and the candidate parts a diagnosis lists for them."""

    # ------------------------------------------------------------------ symptoms
    async def symptoms(self, appliance: Appliance | None = None) -> list[Symptom]:
        return self._symptoms.all(appliance)

    async def match_symptoms(self, text: str, appliance: Appliance | None = None) -> list[Symptom]:
        return self._symptoms.match(safe_user_text(str(text), 5000), appliance)

    async def diagnose(
        self,
        appliance: Appliance | None,
        symptoms: list[str],
        model: str | None = None,
        limit: int = 8,
    ) -> Diagnosis:
        """Candidate parts: repair-guide part types first (most common cause first), then
        parts listing the symptom; restricted to parts that fit ``model`` when it is known."""
        limit = max(1, min(int(limit), 50))
        info = self._models.resolve(safe_user_text(model, 200)) if model else None
        if appliance not in APP_BITS:
            appliance = None
        if appliance is None and info is not None and info[3] in APP_BITS:
            appliance = cast(Appliance, info[3])
        found: list[Symptom] = []
        unrecognised: list[str] = []
        for raw in list(symptoms)[:20]:
            s = safe_user_text(str(raw), 500)
            got = self._symptoms.resolve(s, appliance)
            if not got:
                unrecognised.append(s)
            for sym in got:
                if sym not in found:
                    found.append(sym)
        if appliance is None:
            apps = {s["appliance"] for s in found}
            if len(apps) == 1:
                appliance = next(iter(apps))
        if appliance is not None:
            found = [s for s in found if s["appliance"] == appliance]
        guides = [self._guides[s["id"]] for s in found if s["id"] in self._guides]
        candidates = await self._candidates(found, info, limit)
        fits: FitStatus | None = None
        if model:
            fits = "fits" if info is not None else "unknown_model"
        return Diagnosis(
            appliance=appliance,
            symptoms=[s["label"] for s in found],
            unrecognised=unrecognised,
            guides=guides,
            candidates=[
                DiagnosisCandidate(part=part_from_row(r), part_type=r[5], reason=why, fits=fits)
                for r, why in candidates
            ],
        )

    async def _candidates(
        self, found: list[Symptom], info: tuple[Any, ...] | None, limit: int
    ) -> list[tuple[Any, str]]:
        picked: list[tuple[Any, str]] = []
        seen: set[int] = set()
        per_type: list[tuple[list[Any], str]] = []
        listed: list[tuple[list[Any], str]] = []
        for sym in found:
            app_word = _APP_PLURAL.get(sym["appliance"], sym["appliance"])
            types = self._guide_types.get(sym["id"], [])
            by_type, by_symptom = await self._symptom_candidates(sym, types, info, limit)
            for rank, ptype in enumerate(types):
                rows = by_type.get(ptype)
                if not rows:
                    continue
                what = f"the {_ORDINALS[rank]} cause" if rank < len(_ORDINALS) else "a known cause"
                per_type.append((rows, f"{what} of *{sym['label']}* on {app_word}"))
            listed.append((by_symptom, f"listed as fixing *{sym['label']}*"))
        # 1. one best part per repair-guide part type (most common cause first), round robin
        depth = 0
        while len(picked) < limit and any(depth < len(rows) for rows, _ in per_type):
            for rows, why in per_type:
                if depth < len(rows) and rows[depth][0] not in seen and len(picked) < limit:
                    seen.add(rows[depth][0])
                    picked.append((rows[depth], why))
            depth += 1
        # 2. other parts listed as fixing the symptom, in the order they fix it
        for rows, why in listed:
            for row in rows:
                if len(picked) >= limit:
                    return picked
                if row[0] not in seen:
                    seen.add(row[0])
                    picked.append((row, why))
        if not picked and info is not None:
            picked = await self._by_listed_types(found, info, limit)
        return picked

    async def _by_listed_types(
        self, found: list[Symptom], info: tuple[Any, ...], limit: int
    ) -> list[tuple[Any, str]]:
        """3. Nothing the model fits names a symptom no repair guide covers ("Frost buildup"
        on a model whose defrost parts list other symptoms): the model's parts of the
        types most often listed as fixing it."""
        picked: list[tuple[Any, str]] = []
        for sym in found:
            types = (
                [] if self._guide_types.get(sym["id"]) else self._listed_types.get(sym["id"], [])
            )
            if not types:
                continue
            by_type, _ = await self._symptom_candidates(sym, types, info, limit)
            for ptype in types:
                for row in by_type.get(ptype, [])[:1]:
                    if len(picked) < limit and all(row[0] != p[0][0] for p in picked):
                        picked.append(
                            (
                                row,
                                f"a {ptype.lower()}, a kind of part listed as fixing *{sym['label']}*",
                            )
                        )
        return picked

    async def _symptom_candidates(
        self,
        sym: Symptom,
        types: list[str],
        info: tuple[Any, ...] | None,
        limit: int,
    ) -> tuple[dict[str, list[Any]], list[Any]]:
        """Top parts per guide part type, and parts listing the symptom: one round trip."""
        per_type = 3
        by_type: dict[str, list[Any]] = {}
        if info is not None:
            # the model's parts are few: fetch the relevant ones and rank here
            marks = ",".join("?" * len(types)) or "NULL"
            rows = await self._rows(
                f"SELECT {PART_COLS}, s.pos FROM compat c JOIN parts p ON p.id = c.part_id "
                "LEFT JOIN part_symptoms s ON s.symptom_id = ? AND s.part_id = p.id "
                f"WHERE c.model_id = ? AND (p.part_type IN ({marks}) OR s.pos IS NOT NULL)",
                (sym["id"], info[1], *types),
                order=_by_symptom_pos,
            )
            for r in rows:
                if r[5] in types and len(by_type.setdefault(r[5], [])) < per_type:
                    by_type[r[5]].append(r)
            return by_type, [r for r in rows if r[NCOLS] is not None][: limit * 2]
        bit = APP_BITS[sym["appliance"]]
        parts: list[str] = []
        params: list[Any] = []
        for i, ptype in enumerate(types[:16]):
            parts.append(
                f"SELECT * FROM (SELECT {PART_COLS}, {i} AS tag, 0 AS k FROM part_symptoms s "
                "INDEXED BY part_symptoms_type JOIN parts p ON p.id = s.part_id "
                "WHERE s.symptom_id = ? AND s.part_type = ? ORDER BY s.pos, s.pop_rank LIMIT ?)"
            )
            params += [sym["id"], ptype, per_type]
            parts.append(
                f"SELECT * FROM (SELECT {PART_COLS}, {i} AS tag, 1 AS k FROM parts p "
                "INDEXED BY parts_type WHERE p.part_type = ? AND p.app_mask & ? "
                "AND p.details = 1 ORDER BY p.pop_rank LIMIT ?)"
            )
            params += [ptype, bit, per_type]
        parts.append(
            f"SELECT * FROM (SELECT {PART_COLS}, -1 AS tag, 0 AS k FROM part_symptoms s "
            "JOIN parts p ON p.id = s.part_id WHERE s.symptom_id = ? "
            "ORDER BY s.pos, s.pop_rank LIMIT ?)"
        )
        params += [sym["id"], limit * 2]
        rows = await self._rows(" UNION ALL ".join(parts), tuple(params), heavy=True)
        listed: list[Any] = []
        for r in rows:  # rows arrive in subquery order: listing parts before popular ones
            tag = r[NCOLS]
            if tag < 0:
                listed.append(r)
                continue
            bucket = by_type.setdefault(types[tag], [])
            if len(bucket) < per_type and all(b[0] != r[0] for b in bucket):
                bucket.append(r)
        return by_type, listed
