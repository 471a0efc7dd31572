"""Catalog search: exact part numbers first, then bm25 full text or a model's parts."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import orjson

from .normalize import safe_user_text
from .schema import APP_BITS, BM25_WEIGHTS
from .stem import stem
from .store_core import NCOLS, PART_COLS, CatalogCore, part_from_row
from .types import (
    Appliance,
    SearchHit,
)
from .vocab import APPLIANCE_NAMES, appliance_stems, appliance_words

_WORD = re.compile(r"\w+")
_STOPWORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "the",
        "for",
        "my",
        "of",
        "to",
        "in",
        "on",
        "is",
        "it",
        "i",
        "me",
        "need",
        "new",
        "part",
        "parts",
        "replacement",
        "replace",
        "with",
        "from",
        "that",
        "this",
        "does",
        "do",
        "have",
        "has",
        "what",
        "which",
        "where",
        "who",
        "how",
        "can",
        "you",
        "your",
        "our",
    )
)


@cache
def _appliance_query_words() -> dict[str, Appliance]:
    """One-word spellings that name an appliance, "freezer" too (not its parts: "ice maker"
    and "crisper" are searched for)."""
    kinds = (*APPLIANCE_NAMES, "compartment")
    return {w: app for w, app in appliance_words(kinds) if " " not in w}


def _appliance_named(token: str) -> Appliance | None:
    """The appliance a query word names ("fridges", "dw", "refrigirator"), else None."""
    named = _appliance_query_words().get(token)
    if named is None:
        named = next((a for s, a in appliance_stems(APPLIANCE_NAMES) if token.startswith(s)), None)
    return named


_BM25 = ", ".join(str(w) for w in BM25_WEIGHTS)
_FTS_WINDOW = 200


def _field_words(row: Any) -> list[tuple[float, set[str]]]:
    """(bm25 weight, stemmed words) per searchable field of a part row."""

    def words(*texts: str | None) -> set[str]:
        return {stem(w) for t in texts if t for w in _WORD.findall(t.lower())}

    nums = [row[1], row[1][2:], row[2], *orjson.loads(row[12])]
    return [
        (BM25_WEIGHTS[0], words(row[3])),
        (BM25_WEIGHTS[1], words(row[5])),
        (BM25_WEIGHTS[2], words(row[4])),
        (BM25_WEIGHTS[3], words(*orjson.loads(row[13]))),
        (BM25_WEIGHTS[4], words(*nums)),
    ]


def _by_score(row: Any) -> tuple[float, int]:
    """Search rank: the score column (bm25, lower is better), parts without details
    (``p.details`` 0) pushed down, then popularity (``p.pop_rank``)."""
    return (row[NCOLS] + (1 - row[16]) * 5.0, row[17])


class PartSearch(CatalogCore):
    """Ranked part search: exact numbers, then full text (or within one model's parts)."""

    async def search(
        self,
        query: str,
        model: str | None = None,
        appliance: Appliance | None = None,
        limit: int = 10,
    ) -> list[SearchHit]:
        """Ranked full-text search; an exact part number comes first."""
        text = safe_user_text(str(query), 1000)
        limit = max(1, min(int(limit), 100))
        mask = APP_BITS.get(appliance or "", 0)
        model_id: int | None = None
        if model:
            info = self._models.resolve(safe_user_text(model, 200))
            model_id = info[1] if info else None
        tokens: list[str] = []
        for tok in _WORD.findall(text.lower())[:24]:
            tok = tok.replace("_", "")[:40]
            if not tok:
                continue
            named = _appliance_named(tok) if not mask else None
            if named is not None:
                mask = APP_BITS[named]
                continue
            if model_id is None and not model and any(c.isdigit() for c in tok):
                info = self._models.exact(tok)
                if info and not await self._part_row(tok):
                    model_id = info[1]
                    continue
            tokens.append(tok)

        hits: list[SearchHit] = []
        seen: set[str] = set()
        # exact numbers first: the whole query, then number-like tokens
        candidates = [text] + [t for t in tokens if any(c.isdigit() for c in t)]
        for cand in candidates[:6]:
            row = await self._part_row(cand, model_id)
            if row and row[1] not in seen and (model_id is None or row[NCOLS] is not None):
                seen.add(row[1])
                hits.append(SearchHit(part=part_from_row(row), score=1000.0 - len(hits)))
        words = [t for t in tokens if t not in _STOPWORDS] or tokens
        words = list(dict.fromkeys(words))[:12]
        if words and len(hits) < limit:
            for joiner in (" AND ", " OR "):
                if len(hits) >= limit or (joiner == " OR " and len(words) == 1):
                    break
                if model_id is not None:
                    rows = await self._model_matches(words, mask, model_id, joiner == " AND ")
                else:
                    match = joiner.join(f'"{w}"' for w in words)
                    rows = await self._fts(match, mask, limit + len(seen))
                for row in rows:
                    if row[1] in seen:
                        continue
                    seen.add(row[1])
                    hits.append(
                        SearchHit(part=part_from_row(row), score=round(-float(row[NCOLS]), 4))
                    )
                    if len(hits) >= limit:
                        break
        return hits[:limit]

    async def _fts(self, match: str, mask: int, limit: int) -> list[Any]:
        """bm25-ranked matches. Part ids follow popularity, so scanning matches in id order
        and stopping after ``_FTS_WINDOW`` bounds the work on very common words while
        keeping the best-known parts; the window is then ranked by bm25."""
        where = "parts_fts MATCH ?" + (" AND p.app_mask & ?" if mask else "")
        params = (match, mask, _FTS_WINDOW) if mask else (match, _FTS_WINDOW)
        sql = (
            f"SELECT {PART_COLS}, bm25(parts_fts, {_BM25}) AS s FROM parts_fts "
            f"JOIN parts p ON p.id = parts_fts.rowid WHERE {where} LIMIT ?"
        )
        rows = await self._rows(sql, params, heavy=True, order=_by_score)
        return rows[:limit]

    async def _model_matches(
        self, words: list[str], mask: int, model_id: int, require_all: bool
    ) -> list[Any]:
        """Search within one model's parts (a few hundred at most), scored here with the
        same column weights as bm25."""
        rows = await self._rows(
            f"SELECT {PART_COLS} FROM compat c JOIN parts p ON p.id = c.part_id "
            "WHERE c.model_id = ?" + (" AND p.app_mask & ?" if mask else ""),
            (model_id, mask) if mask else (model_id,),
        )
        wanted = [stem(w) for w in words]
        scored = []
        for row in rows:
            fields = _field_words(row)
            per_word = [max((wt for wt, ws in fields if w in ws), default=0.0) for w in wanted]
            hits = sum(1 for x in per_word if x)
            if hits == 0 or (require_all and hits < len(wanted)):
                continue
            score = sum(per_word) * hits / len(wanted)
            scored.append((*row, -score))
        scored.sort(key=_by_score)
        return scored
