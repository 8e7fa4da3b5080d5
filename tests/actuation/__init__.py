"""Tests of actuation."""
