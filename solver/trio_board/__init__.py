"""trio_board."""
