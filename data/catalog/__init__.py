"""Normalised catalog facts, shipped in the wheel as partchat.catalog_data."""
