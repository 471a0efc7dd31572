"""partchat: an embeddable support chat agent for refrigerator and dishwasher parts."""

__version__ = "0.1.0"
