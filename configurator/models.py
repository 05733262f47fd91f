"""Saved builds live here once «Build validation…» lands; the domain itself has no ORM."""
