"""tabula_trivium."""
