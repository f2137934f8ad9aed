"""Learning: value networks, state encodings, TD(lambda) training."""
