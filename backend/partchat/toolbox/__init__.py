"""The six tools: contracts, validation, dispatch, implementations, cards, records."""
