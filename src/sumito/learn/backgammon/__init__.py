"""Backgammon in the lab: Wiering's training runs on disk (:mod:`.run`), their actor–learner form
(:mod:`.actors`) and the ``sumito bg`` commands (:mod:`.commands`)."""
