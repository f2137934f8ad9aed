"""The games other than Abalone (whose rules live in :mod:`sumito.engine`), each plugging into
:mod:`sumito.learn` through the same small learning-game interface."""
