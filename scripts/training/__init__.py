"""Fitting nets outside ``fibsbot train``: dense nets, root nets, and how far a net is from its labels."""
