"""Turns: the engine, the per-session hub and replay, admission, relayed turns."""
