"""The wire protocol: frames, their generated types, the shapes every layer shares."""
