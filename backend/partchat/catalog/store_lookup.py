"""Catalog lookups: parts and models by number, fit, a model's parts, install guides."""

from __future__ import annotations

from typing import Any

from .normalize import part_type_from_name, phrase_key, safe_user_text
from .schema import EVIDENCE_NAMES
from .store_core import NCOLS, PART_COLS, CatalogCore, part_from_row
from .types import (
    Compatibility,
    InstallGuide,
    ModelLookup,
    Part,
)


class PartLookups(CatalogCore):
    """Parts and models by number, fit, a model's parts, install guides."""

    # ------------------------------------------------------------------ parts
    async def get_part(self, number: str) -> Part | None:
        """By PS number, manufacturer number or any replaced number (→ the current part)."""
        row = await self._part_row(safe_user_text(str(number), 200))
        return part_from_row(row) if row else None

    # ------------------------------------------------------------------ models
    async def find_model(self, text: str) -> ModelLookup:
        return self._models.lookup(safe_user_text(str(text), 200))

    async def compatibility(self, part: str, model: str) -> Compatibility:
        info = self._models.resolve(safe_user_text(str(model), 200))
        minfo = self._models.info(info) if info else None
        row = await self._part_row(safe_user_text(str(part), 200), info[1] if info else None)
        if row is None:
            return Compatibility(status="unknown_part", evidence=None, part=None, model=minfo)
        found = part_from_row(row)
        if info is None or minfo is None:
            return Compatibility(status="unknown_model", evidence=None, part=found, model=None)
        if row[NCOLS] is not None:
            return Compatibility(
                status="fits", evidence=EVIDENCE_NAMES[row[NCOLS]], part=found, model=minfo
            )
        return Compatibility(
            status="not_listed", evidence="model_page" if info[5] else None, part=found, model=minfo
        )

    async def parts_for_model(
        self, model: str, part_type: str | None = None, limit: int = 50
    ) -> list[Part]:
        info = self._models.resolve(safe_user_text(str(model), 200))
        if info is None:
            return []
        limit = max(1, min(int(limit), 500))
        sql = (
            f"SELECT {PART_COLS} FROM compat c JOIN parts p ON p.id = c.part_id "
            "WHERE c.model_id = ?"
        )
        params: list[Any] = [info[1]]
        if part_type:
            ptype = self._resolve_type(safe_user_text(part_type, 200))
            if ptype:
                sql += " AND p.part_type = ?"
                params.append(ptype)
            else:
                sql += " AND p.name LIKE ? ESCAPE '\\'"
                esc = safe_user_text(part_type, 100).replace("\\", "\\\\")
                params.append("%" + esc.replace("%", "\\%").replace("_", "\\_") + "%")
        sql += " ORDER BY p.details DESC, p.pop_rank LIMIT ?"
        params.append(limit)
        return [part_from_row(r) for r in await self._rows(sql, tuple(params), heavy=True)]

    # ------------------------------------------------------------------ guides
    async def install_guide(self, part_type: str | None) -> InstallGuide:
        """The guide written for ``part_type``, else the general guide (generic=True)."""
        if part_type:
            text = safe_user_text(str(part_type), 200)
            for key in (phrase_key(text), phrase_key(part_type_from_name(text) or "")):
                if key and key in self._install:
                    return InstallGuide(**self._install[key])
        return self._general()

    def _general(self) -> InstallGuide:
        g = self._install.get("")
        if g is None:
            return InstallGuide(
                part_type=None,
                title="General part replacement",
                generic=True,
                safety=["Unplug the appliance before you start."],
                tools=[],
                steps=[],
                test=[],
            )
        return InstallGuide(**g)

    async def install_guide_for_part(self, number: str) -> InstallGuide | None:
        """The install guide for a part number, with the part's own video when it has one."""
        part = await self.get_part(number)
        if part is None:
            return None
        guide = await self.install_guide(part["part_type"])
        guide["video_url"] = part["video_url"]
        return guide
