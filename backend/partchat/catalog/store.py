"""The async query layer over catalog.db (read-only).

Small things (symptom vocabulary, model index, install guides) are loaded into memory at
``open``; parts and compatibility stay in SQLite behind indexed lookups. Queries run on
the event loop (they take microseconds; a thread hop per query cost more than the query,
see ``partchat.catalog.loop_sqlite``); one that runs past its budget is re-run on a thread.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Final, cast

import orjson

from partchat.catalog.loop_sqlite import LoopConnection, LoopSqlite, fetch_all

from .build import ro_uri
from .models_index import ModelIndex
from .normalize import number_key, part_type_from_name, phrase_key, safe_user_text
from .schema import APP_BITS, BM25_WEIGHTS, EVIDENCE_NAMES
from .stem import stem
from .symptom_index import SymptomIndex
from .types import (
    Appliance,
    CatalogStats,
    Compatibility,
    Diagnosis,
    DiagnosisCandidate,
    FitStatus,
    InstallGuide,
    ModelLookup,
    Part,
    RepairGuide,
    SearchHit,
    Symptom,
)
from .vocab import APPLIANCE_NAMES, appliance_stems, appliance_words

PART_COLS = (
    "p.id, p.ps_number, p.mfr_number, p.name, p.brand, p.part_type, p.appliances, "
    "p.price_cents, p.availability, p.video_url, p.rating_pct, p.review_count, p.replaces, "
    "p.symptoms, p.difficulty, p.install_time, p.details, p.pop_rank"
)
_NCOLS = 18
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


_ORDINALS = ("most common", "2nd most common", "3rd most common")
_APP_PLURAL = {"dishwasher": "dishwashers", "refrigerator": "refrigerators"}
_BM25 = ", ".join(str(w) for w in BM25_WEIGHTS)
_FTS_WINDOW = 200
CACHE_ENTRIES = 2048  # query results kept (a few MB at most)
# a query, its parameters and how its rows are sorted (None: as SQLite returned them)
_Key = tuple[str, tuple[Any, ...], Callable[[Any], Any] | None]


def _part(row: Any) -> Part:
    return Part(
        ps_number=row[1],
        mfr_number=row[2],
        name=row[3],
        brand=row[4],
        part_type=row[5],
        appliances=orjson.loads(row[6]),
        price_cents=row[7],
        availability=row[8],
        video_url=row[9],
        rating_pct=row[10],
        review_count=row[11],
        replaces=orjson.loads(row[12]),
        symptoms=orjson.loads(row[13]),
        difficulty=row[14],
        install_time=row[15],
    )


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


# Part numbers in text when the catalog records no shape of its own (built before).
PS_PATTERN: Final = re.compile(r"\bPS\d{3,12}\b")


class Catalog:
    """Implements ``CatalogReader``. Every method accepts any user string and never raises
    on it (bad input gives empty results)."""

    def __init__(
        self,
        db: LoopSqlite,
        models: ModelIndex,
        symptoms: SymptomIndex,
        guides: dict[str, RepairGuide],
        guide_types: dict[str, list[str]],
        install: dict[str, InstallGuide],
        part_types: dict[str, str],
        *,
        cache_entries: int = CACHE_ENTRIES,
    ) -> None:
        self._db = db
        self._cache_entries = cache_entries
        self._models = models
        self._symptoms = symptoms
        self._guides = guides
        self._guide_types = guide_types
        # symptom id -> the part types most often listed as fixing it (for symptoms no
        # repair guide names: "Frost buildup")
        self._listed_types: dict[str, list[str]] = {}
        self._install = install
        self._part_types = part_types
        self._stats: CatalogStats | None = None
        self._number_pattern: re.Pattern[str] = PS_PATTERN
        self._cache: OrderedDict[_Key, tuple[Any, ...]] = OrderedDict()
        self.cache_hits = 0
        self._pending: dict[_Key, asyncio.Future[tuple[Any, ...]]] = {}

    @classmethod
    async def open(cls, db_path: Path, *, cache_entries: int = CACHE_ENTRIES) -> Catalog:
        """Open ``db_path`` read-only and load the small in-memory indexes.

        ``cache_entries``: query results kept (0: none, e.g. to time the queries)."""
        db_path = Path(db_path)
        if not db_path.is_file():
            raise FileNotFoundError(f"catalog database not found: {db_path}")
        db = LoopSqlite.connect(ro_uri(db_path), uri=True, busy_timeout_ms=5000)
        try:
            loaded = await db.run(_load_indexes)
            shape = await db.run(_load_shape)
            listed_types = await db.run(_load_listed_types)
        except BaseException:
            await db.close()
            raise
        catalog = cls(db, *loaded, cache_entries=cache_entries)
        catalog._listed_types = listed_types
        if shape:
            catalog._number_pattern = re.compile(rf"\b(?:{shape})\b")
        return catalog

    async def part_number_pattern(self) -> re.Pattern[str]:
        """Finds this catalog's own part numbers in text (``PS11752778``, ``AB-10234``),
        known or not: the shape the build found they share (``PS`` numbers when none)."""
        return self._number_pattern

    def warm(self) -> None:
        """Build the indexes otherwise built on first use (the server, before it
        freezes its heap; tests skip it)."""
        self._models.warm()

    async def close(self) -> None:
        await self._db.close()

    async def __aenter__(self) -> Catalog:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ helpers
    async def _rows(
        self,
        sql: str,
        params: tuple[Any, ...] = (),
        *,
        heavy: bool = False,
        order: Callable[[Any], Any] | None = None,
    ) -> list[Any]:
        """The query's rows ([] if sqlite fails), sorted by ``order`` if given. ``heavy``:
        a scan (full-text search, a model's parts) that can take milliseconds, run on a
        thread so it never stalls the answers streaming meanwhile; lookups by key run on
        the loop.

        The catalog does not change while it is open, so results are kept (LRU), already
        sorted: shoppers ask about the same popular parts and symptoms again and again.
        The key includes ``order`` (a module-level function, so the same one each call):
        the same rows sorted another way, or not at all, are another result.
        """
        key: _Key = (sql, params, order)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            self.cache_hits += 1
            return list(cached)
        pending = self._pending.get(key)
        if pending is not None:  # the same query is running for another turn: share it
            try:
                shared = await asyncio.shield(pending)
            except asyncio.CancelledError:
                if not pending.cancelled():
                    raise  # this caller was cancelled
                # the first one was: run it again, ranked as this caller asked
                return await self._rows(sql, params, heavy=heavy, order=order)
            self.cache_hits += 1
            return list(shared)
        fut: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()
        self._pending[key] = fut
        try:
            rows = await self._db.run(fetch_all(sql, params), inline=not heavy)
        except sqlite3.OperationalError:
            rows = []  # not kept: the next ask tries again
            fut.cancel()  # nor shared: the callers waiting for it ask again themselves
        except BaseException:
            fut.cancel()
            raise
        else:
            if order is not None:
                rows.sort(key=order)
            self._cache[key] = tuple(rows)
            if len(self._cache) > self._cache_entries:
                self._cache.popitem(last=False)
        finally:
            del self._pending[key]
        if not fut.cancelled():
            fut.set_result(tuple(rows))
        return rows

    async def _part_row(self, number: str, model_id: int | None = None) -> Any | None:
        key = number_key(number)
        if not key or len(key) > 64:
            return None
        keys = (key, key[2:]) if key.startswith("PS") and key[2:].isdigit() else (key, key)
        fit = (
            "(SELECT evidence FROM compat c WHERE c.model_id = ? AND c.part_id = p.id)"
            if model_id is not None
            else "NULL"
        )
        params: tuple[Any, ...] = (model_id, *keys) if model_id is not None else keys
        rows = await self._rows(
            f"SELECT {PART_COLS}, {fit} FROM part_numbers n JOIN parts p ON p.id = n.part_id "
            "WHERE n.key IN (?, ?) ORDER BY n.kind, p.pop_rank LIMIT 1",
            params,
        )
        return rows[0] if rows else None

    def _resolve_type(self, text: str) -> str | None:
        key = phrase_key(text)
        return self._part_types.get(key) or part_type_from_name(text)

    # ------------------------------------------------------------------ parts
    async def get_part(self, number: str) -> Part | None:
        """By PS number, manufacturer number or any replaced number (→ the current part)."""
        row = await self._part_row(safe_user_text(str(number), 200))
        return _part(row) if row else None

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
            if row and row[1] not in seen and (model_id is None or row[_NCOLS] is not None):
                seen.add(row[1])
                hits.append(SearchHit(part=_part(row), score=1000.0 - len(hits)))
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
                    hits.append(SearchHit(part=_part(row), score=round(-float(row[_NCOLS]), 4)))
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

    # ------------------------------------------------------------------ models
    async def find_model(self, text: str) -> ModelLookup:
        return self._models.lookup(safe_user_text(str(text), 200))

    async def compatibility(self, part: str, model: str) -> Compatibility:
        info = self._models.resolve(safe_user_text(str(model), 200))
        minfo = self._models.info(info) if info else None
        row = await self._part_row(safe_user_text(str(part), 200), info[1] if info else None)
        if row is None:
            return Compatibility(status="unknown_part", evidence=None, part=None, model=minfo)
        found = _part(row)
        if info is None or minfo is None:
            return Compatibility(status="unknown_model", evidence=None, part=found, model=None)
        if row[_NCOLS] is not None:
            return Compatibility(
                status="fits", evidence=EVIDENCE_NAMES[row[_NCOLS]], part=found, model=minfo
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
        return [_part(r) for r in await self._rows(sql, tuple(params), heavy=True)]

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
                DiagnosisCandidate(part=_part(r), part_type=r[5], reason=why, fits=fits)
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
            return by_type, [r for r in rows if r[_NCOLS] is not None][: limit * 2]
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
            tag = r[_NCOLS]
            if tag < 0:
                listed.append(r)
                continue
            bucket = by_type.setdefault(types[tag], [])
            if len(bucket) < per_type and all(b[0] != r[0] for b in bucket):
                bucket.append(r)
        return by_type, listed

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

    # ------------------------------------------------------------------ stats
    async def stats(self) -> CatalogStats:
        if self._stats is None:
            self._stats = await self._stats_via_queries()
        return self._stats

    async def _stats_via_queries(self) -> CatalogStats:
        async def one(sql: str) -> int:
            rows = await self._rows(sql, heavy=True)
            return int(rows[0][0]) if rows else 0

        by_app: dict[str, dict[str, int]] = {}
        for app, bit in APP_BITS.items():
            by_app[app] = {
                "parts": await one(f"SELECT count(*) FROM parts WHERE app_mask & {bit}"),
                "parts_with_details": await one(
                    f"SELECT count(*) FROM parts WHERE app_mask & {bit} AND details = 1"
                ),
                "models": await one(f"SELECT count(*) FROM models WHERE appliance = '{app}'"),
                "symptoms": await one(f"SELECT count(*) FROM symptoms WHERE appliance = '{app}'"),
                "repair_guides": await one(
                    f"SELECT count(*) FROM repair_guides WHERE appliance = '{app}'"
                ),
            }
        return CatalogStats(
            parts=await one("SELECT count(*) FROM parts"),
            models=await one("SELECT count(*) FROM models"),
            compatibility_pairs=await one("SELECT count(*) FROM compat"),
            symptoms=await one("SELECT count(*) FROM symptoms"),
            install_guides=await one(
                "SELECT count(*) FROM install_guides WHERE part_type_key != ''"
            ),
            brands=await one("SELECT count(DISTINCT brand) FROM parts WHERE brand IS NOT NULL"),
            by_appliance=by_app,
        )


_Indexes = tuple[
    ModelIndex,
    SymptomIndex,
    dict[str, RepairGuide],
    dict[str, list[str]],
    dict[str, InstallGuide],
    dict[str, str],
]


def _by_symptom_pos(row: Any) -> tuple[bool, int, int]:
    """A model's parts for a symptom: those listing it first, in its order (the ``s.pos``
    column), then popularity (``p.pop_rank``)."""
    return (row[_NCOLS] is None, row[_NCOLS] or 0, row[17])


def _by_score(row: Any) -> tuple[float, int]:
    """Search rank: the score column (bm25, lower is better), parts without details
    (``p.details`` 0) pushed down, then popularity (``p.pop_rank``)."""
    return (row[_NCOLS] + (1 - row[16]) * 5.0, row[17])


def _load_indexes(conn: LoopConnection) -> _Indexes:
    """Configure the connection and read the small tables kept in memory."""
    conn.execute("PRAGMA query_only = 1")
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute("PRAGMA mmap_size = 268435456")
    models = ModelIndex(
        conn.execute(
            "SELECT model_number, id, brand, appliance, part_count, has_model_page FROM models"
        ).fetchall()
    )
    symptoms = SymptomIndex(
        [
            Symptom(id=r[0], appliance=r[1], label=r[2], synonyms=orjson.loads(r[3]))
            for r in conn.execute("SELECT id, appliance, label, synonyms FROM symptoms ORDER BY id")
        ]
    )
    guides: dict[str, RepairGuide] = {}
    guide_types: dict[str, list[str]] = {}
    for (data,) in conn.execute("SELECT data FROM repair_guides ORDER BY rank").fetchall():
        g = orjson.loads(data)
        guides[g["symptom_id"]] = RepairGuide(
            appliance=g["appliance"],
            symptom=g["symptom"],
            part_types=g["part_types"],
            reported_pct=g.get("reported_pct"),
            difficulty=g.get("difficulty"),
            video_url=g.get("video_url"),
        )
        guide_types[g["symptom_id"]] = list(g.get("catalog_part_types") or [])
    install: dict[str, InstallGuide] = {
        key: orjson.loads(data)
        for key, data in conn.execute("SELECT part_type_key, data FROM install_guides").fetchall()
    }
    part_types = {
        phrase_key(t): t
        for (t,) in conn.execute(
            "SELECT DISTINCT part_type FROM parts WHERE part_type IS NOT NULL"
        ).fetchall()
    }
    return models, symptoms, guides, guide_types, install, part_types


def _load_listed_types(conn: LoopConnection) -> dict[str, list[str]]:
    """symptom id -> the (up to 6) part types most often among the parts that list it."""
    out: dict[str, list[str]] = {}
    for sid, ptype, n in conn.execute(
        "SELECT symptom_id, part_type, COUNT(*) AS n FROM part_symptoms "
        "WHERE part_type IS NOT NULL GROUP BY symptom_id, part_type "
        "ORDER BY symptom_id, n DESC, part_type"
    ).fetchall():
        types = out.setdefault(sid, [])
        if n >= 2 and len(types) < 6:
            types.append(ptype)
    return out


def _load_shape(conn: LoopConnection) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = 'part_number_shape'").fetchone()
    return str(row[0]) if row else ""


async def catalog_stats(db_path: Path) -> CatalogStats:
    """Open, read the stats, close (for the CLI's ``catalog stats``)."""
    catalog = await Catalog.open(db_path)
    try:
        return await catalog.stats()
    finally:
        await catalog.close()
