"""catalog.db schema. Bump SCHEMA_VERSION whenever the DDL or its meaning changes."""

from __future__ import annotations

from typing import Final

from .types import Evidence

SCHEMA_VERSION: Final = 7

APP_BITS: Final[dict[str, int]] = {"refrigerator": 1, "dishwasher": 2}
EVIDENCE_CODES: Final[dict[str, int]] = {"model_page": 1, "part_page": 2}
EVIDENCE_NAMES: Final[dict[int, Evidence]] = {1: "model_page", 2: "part_page"}
# part_numbers.kind: how a number names a part (lower wins when a number is shared).
KIND_PS, KIND_MFR, KIND_REPLACED, KIND_PS_DIGITS = 0, 1, 2, 3

TABLES: Final = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE nlu_model (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL, arrays BLOB NOT NULL);  -- nlu.store
CREATE TABLE parts (
    id INTEGER PRIMARY KEY,           -- assigned in popularity order (1 = pop_rank 0)
    ps_number TEXT NOT NULL,
    mfr_number TEXT,
    name TEXT NOT NULL,
    brand TEXT,
    part_type TEXT,
    appliances TEXT NOT NULL,         -- JSON list
    app_mask INTEGER NOT NULL,        -- APP_BITS
    price_cents INTEGER,
    availability TEXT,
    video_url TEXT,
    rating_pct INTEGER,
    review_count INTEGER,
    replaces TEXT NOT NULL,           -- JSON list
    symptoms TEXT NOT NULL,           -- JSON list of canonical labels
    difficulty TEXT,
    install_time TEXT,
    details INTEGER NOT NULL,         -- 0: only a PS number on a model page
    pop_rank INTEGER NOT NULL         -- 0 = most reviewed/best documented part
);
CREATE TABLE part_numbers (
    key TEXT NOT NULL, kind INTEGER NOT NULL, part_id INTEGER NOT NULL,
    PRIMARY KEY (key, kind, part_id)
) WITHOUT ROWID;
CREATE TABLE models (
    id INTEGER PRIMARY KEY,
    model_number TEXT NOT NULL,
    brand TEXT,
    appliance TEXT,
    has_model_page INTEGER NOT NULL,
    part_count INTEGER NOT NULL
);
CREATE TABLE compat (
    model_id INTEGER NOT NULL, part_id INTEGER NOT NULL, evidence INTEGER NOT NULL,
    PRIMARY KEY (model_id, part_id)
) WITHOUT ROWID;
CREATE TABLE symptoms (
    id TEXT PRIMARY KEY, appliance TEXT NOT NULL, label TEXT NOT NULL, synonyms TEXT NOT NULL
);
CREATE TABLE part_symptoms (
    symptom_id TEXT NOT NULL, pos INTEGER NOT NULL, pop_rank INTEGER NOT NULL,
    part_id INTEGER NOT NULL, part_type TEXT,
    PRIMARY KEY (symptom_id, pos, pop_rank, part_id)
) WITHOUT ROWID;
CREATE TABLE repair_guides (
    appliance TEXT NOT NULL, symptom_id TEXT NOT NULL, rank INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (symptom_id)
);
CREATE TABLE install_guides (part_type_key TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE VIRTUAL TABLE parts_fts USING fts5(
    name, part_type, brand, symptoms, numbers,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
"""

INDEXES: Final = """
CREATE UNIQUE INDEX parts_ps ON parts(ps_number);
CREATE INDEX parts_type ON parts(part_type, pop_rank);
CREATE UNIQUE INDEX models_number ON models(model_number);
CREATE INDEX compat_part ON compat(part_id, model_id);
CREATE INDEX part_symptoms_part ON part_symptoms(part_id, symptom_id);
CREATE INDEX part_symptoms_type ON part_symptoms(symptom_id, part_type, pos, pop_rank);
"""

# bm25 column weights: name, part_type, brand, symptoms, numbers.
BM25_WEIGHTS: Final = (6.0, 4.0, 1.5, 1.0, 8.0)
