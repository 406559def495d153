"""The sizes the evaluation buffers are allocated at, and where the units of the side
on roll's own checkers lie in the contact encodings.

Buffers are allocated once at the largest net supported and sliced to a net's own
sizes inside the kernels (``engine.eval.forward.evaluate_one``), so one context serves
every net; ``engine.eval.evaluator.Evaluator.kernel_params`` refuses larger nets.

The offsets are worked out from the encoding's own feature lists
(``engine.eval.encode.CONTACT_TAIL``, ``engine.eval.features.EXTRA_FEATURES``), so a
feature added there moves them with it.
"""

from __future__ import annotations

from engine.eval.blockade import EXTRA3_FEATURES
from engine.eval.encode import CONTACT2_HALF, CONTACT_HALF, CONTACT_POINT_UNITS, CONTACT_TAIL
from engine.eval.features import EXTRA_FEATURES

MAX_INPUTS = 512  # the widest input layer a context's buffers hold
MAX_HIDDEN = 1024  # the widest hidden layer
OUTPUT_LANES = 8  # a net has at most five outputs; ``engine.eval.forward.gnubg5_probs`` fills eight lanes
MAX_SECOND_HIDDEN = 256  # the widest second hidden layer (``deep5`` nets)
# the raw outputs buffer: the output lanes, then a second hidden layer's units
RAW_LANES = OUTPUT_LANES + MAX_SECOND_HIDDEN

# The tail units (after the points) that depend only on a side's own checkers: how
# many are off, its pips, how far back it is, its home points, prime, blots, anchor
# and home-board count.  The others (shots, escapes, contain) also read the other side.
OWN_TAIL_FEATURES = ("off", "pips", "back", "home_points", "prime", "blots", "anchor", "homecount")
OWN_EXTRA_FEATURES = ("timing",)  # the same among contact2's extra features
# and among contact3's: all but the rearmost checker's escapes (its blockade, contain36,
# is of its own points alone: the fewest escapes from fixed columns)
OWN_EXTRA3_FEATURES = ("back_chequer", "forward_anchor", "deep_anchors", "contain36", "contain36_sq", "moment2")

# indices in the side on roll's block of inputs (row 0 of the board)
OWN_POINT_UNITS = tuple(range(CONTACT_POINT_UNITS))
OWN_TAIL_UNITS = tuple(CONTACT_POINT_UNITS + CONTACT_TAIL.index(name) for name in OWN_TAIL_FEATURES)
OWN_EXTRA_UNITS = tuple(CONTACT_HALF + EXTRA_FEATURES.index(name) for name in OWN_EXTRA_FEATURES)
OWN_EXTRA3_UNITS = tuple(CONTACT2_HALF + EXTRA3_FEATURES.index(name) for name in OWN_EXTRA3_FEATURES)
