"""The names of the normalised catalog data files in ``data/catalog/``."""

from __future__ import annotations

PARTS_FILE = "parts.jsonl.gz"
MODELS_FILE = "models.jsonl.gz"
COMPAT_FILE = "compatibility.jsonl.gz"
SYMPTOMS_FILE = "symptoms.json"
GUIDES_FILE = "repair_guides.json"
INSTALL_FILE = "install_guides.json"
# what a build reads (and its source digest covers)
DATA_FILES = (PARTS_FILE, MODELS_FILE, COMPAT_FILE, SYMPTOMS_FILE, GUIDES_FILE, INSTALL_FILE)
