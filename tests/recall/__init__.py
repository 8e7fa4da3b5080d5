"""Recall: strategies, fusion, reinforcement."""
