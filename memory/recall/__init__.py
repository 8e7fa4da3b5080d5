"""Recall's pure parts (no ORM): fusing the strategies' ranked lists and weighing strength."""
