"""trio_cards."""
