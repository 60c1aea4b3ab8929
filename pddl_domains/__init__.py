"""PDDL domains shipped with the toolkit, as package data."""
