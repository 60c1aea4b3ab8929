"""Reading PDDL text, in pieces; :mod:`toolkit.loader` is the entry point and says which piece does what.

Nothing is imported here, so that importing one piece (the text helpers, for the
editor server) does not import the parsers.
"""
