"""In-memory model number index: exact lookup, revision suffixes, near-miss suggestions."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from difflib import SequenceMatcher
from typing import Any

from .normalize import is_part_number_like, model_key, safe_user_text
from .types import ModelInfo, ModelLookup

# (model_number, id, brand, appliance, part_count, has_model_page)
ModelRow = tuple[str, int, str | None, str | None, int, int]
_MAX_REVISION = 2  # trailing characters treated as a revision suffix (WDT780SAEM → …M1)
_SUGGESTIONS_KEPT = 4096  # unknown model numbers whose suggestions are kept


def _deletes(key: str) -> set[str]:
    return {key[:i] + key[i + 1 :] for i in range(len(key))}


class ModelIndex:
    def __init__(self, rows: Iterable[Any]) -> None:
        self._by_key: dict[str, ModelRow] = {}
        for r in rows:
            row: ModelRow = (str(r[0]), int(r[1]), r[2], r[3], int(r[4]), int(r[5]))
            self._by_key[row[0]] = row
        self._sorted = sorted(self._by_key)
        self._del_index: dict[str, tuple[str, ...]] | None = None
        # suggestions() is a pure function of its arguments (the index never changes),
        # and a session repeats its unknown model in every message it re-reads.
        self._suggested: dict[tuple[str, int], tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    @staticmethod
    def info(row: ModelRow) -> ModelInfo:
        return ModelInfo(
            model_number=row[0],
            brand=row[2],
            appliance=row[3],  # type: ignore[typeddict-item]
            part_count=row[4],
        )

    def exact(self, text: str) -> ModelRow | None:
        return self._by_key.get(model_key(text))

    def _extensions(self, key: str) -> list[str]:
        """Models that are ``key`` plus a short revision suffix."""
        if len(key) < 4:
            return []
        i = bisect.bisect_left(self._sorted, key)
        out = []
        while i < len(self._sorted) and self._sorted[i].startswith(key):
            cand = self._sorted[i]
            if 0 < len(cand) - len(key) <= _MAX_REVISION:
                out.append(cand)
            i += 1
            if len(out) > 50:
                break
        return out

    def _candidates(self, text: str) -> list[str]:
        key = model_key(text)
        keys = [key] if key else []
        for tok in safe_user_text(text, 200).replace("-", "").split():
            k = model_key(tok)
            if is_part_number_like(k) and k not in keys:
                keys.append(k)
        return keys

    def resolve(self, text: str) -> ModelRow | None:
        """Exact model, or the single model that adds a revision suffix to it."""
        return self._resolve(self._candidates(text))

    def _resolve(self, keys: list[str]) -> ModelRow | None:
        for key in keys:
            row = self._by_key.get(key)
            if row:
                return row
        for key in keys:
            ext = self._extensions(key)
            if len(ext) == 1:
                return self._by_key[ext[0]]
        return None

    def warm(self) -> None:
        """Build the near-miss index now (~0.3 s for 17k models) rather than on the
        first misspelt model number, which would stall the event loop that long."""
        if self._del_index is None:
            index: dict[str, list[str]] = {}
            for k in self._sorted:
                for d in _deletes(k):
                    index.setdefault(d, []).append(k)
            # Tuples of strings (and then the dict holding only them) drop out of the
            # garbage collector's view after its first pass; >100k lists built after
            # the server froze its heap would be walked by every full collection.
            self._del_index = {d: tuple(ks) for d, ks in index.items()}

    def _near(self, key: str) -> set[str]:
        self.warm()
        assert self._del_index is not None
        out = set(self._del_index.get(key, ()))
        for d in _deletes(key):
            if d in self._by_key:
                out.add(d)
            out.update(self._del_index.get(d, ()))
        out.discard(key)
        return out

    def suggestions(self, key: str, limit: int = 5) -> list[str]:
        kept = self._suggested.get((key, limit))
        if kept is None:
            kept = tuple(self._suggest(key, limit))
            if len(self._suggested) >= _SUGGESTIONS_KEPT:
                del self._suggested[next(iter(self._suggested))]  # the oldest
            self._suggested[(key, limit)] = kept
        return list(kept)

    def _suggest(self, key: str, limit: int) -> list[str]:
        if len(key) < 3:
            return []
        cands: set[str] = set(self._extensions(key))
        for cut in range(1, _MAX_REVISION + 1):
            if len(key) - cut >= 4:
                stem = key[:-cut]
                if stem in self._by_key:
                    cands.add(stem)
                cands.update(self._extensions(stem))
        if len(key) >= 4:
            cands.update(self._near(key))
        cands.discard(key)

        def rank(k: str) -> tuple[float, int, str]:
            ratio = SequenceMatcher(None, key, k).ratio()
            return (-round(ratio, 3), -self._by_key[k][4], k)

        return sorted(cands, key=rank)[:limit]

    def lookup(self, text: str) -> ModelLookup:
        keys = self._candidates(text)
        normalized = keys[0] if keys else ""
        row = self._resolve(keys)
        if row is not None:
            return ModelLookup(
                query=text, normalized=normalized, match=self.info(row), suggestions=[]
            )
        sugg: list[str] = []
        for key in keys[:4]:
            for s in self.suggestions(key):
                if s not in sugg:
                    sugg.append(s)
        return ModelLookup(query=text, normalized=normalized, match=None, suggestions=sugg[:5])
