"""The normalised catalog data files (``data/catalog/`` or a store's own directory):
their names, where they are, and reading them."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

import orjson

PACKAGE_DATA = "partchat.catalog_data"

PARTS_FILE = "parts.jsonl.gz"
MODELS_FILE = "models.jsonl.gz"
COMPAT_FILE = "compatibility.jsonl.gz"
SYMPTOMS_FILE = "symptoms.json"
GUIDES_FILE = "repair_guides.json"
INSTALL_FILE = "install_guides.json"
# what a build reads (and its source digest covers)
DATA_FILES = (PARTS_FILE, MODELS_FILE, COMPAT_FILE, SYMPTOMS_FILE, GUIDES_FILE, INSTALL_FILE)


def data_root(source_dir: Path | None) -> Traversable:
    """The directory with the normalised files: ``source_dir`` or the packaged data."""
    if source_dir is not None:
        return Path(source_dir)
    return resources.files(PACKAGE_DATA)


def data_file(root: Traversable, name: str) -> Traversable | None:
    for candidate in (name, name.removesuffix(".gz")):
        f = root.joinpath(candidate)
        if f.is_file():
            return f
    return None


def read_jsonl(root: Traversable, name: str) -> Iterator[dict[str, Any]]:
    f = data_file(root, name)
    if f is None:
        raise FileNotFoundError(f"catalog data file {name} not found in {root}")
    with f.open("rb") as raw:
        if f.name.endswith(".gz"):
            with gzip.GzipFile(fileobj=raw) as gz:
                yield from (orjson.loads(line) for line in gz if line.strip())
        else:
            yield from (orjson.loads(line) for line in raw if line.strip())


def read_json(root: Traversable, name: str, default: Any = None) -> Any:
    f = data_file(root, name)
    if f is None:
        if default is not None:
            return default
        raise FileNotFoundError(f"catalog data file {name} not found in {root}")
    return orjson.loads(f.read_bytes())
