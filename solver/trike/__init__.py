"""trike."""
