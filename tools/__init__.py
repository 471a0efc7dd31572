"""Tool contracts (JSON Schema), shipped in the wheel as partchat.contracts."""
