"""Label sets: building them (positions chosen, harvested or selected), labelling them, and measuring labels."""
