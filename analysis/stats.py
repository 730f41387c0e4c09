"""The statistics of trilab's studies: one confidence interval for a share.

Every win rate and share in the tables (Monte Carlo seat win rates, the agent
against the exact solver, pie-rule balance from agent games) comes with the
95% Wilson score interval of :func:`wilson`.
"""

from __future__ import annotations

CONFIDENCE = 0.95
"""The confidence level of every interval in the tables."""


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials, from
    :func:`scipy.stats.binomtest`; ``(nan, nan)`` when ``n`` is 0."""
    if n == 0:
        return (float("nan"), float("nan"))
    # SciPy's statistics are imported on first use: a solve never needs them
    # (tests/test_cli.py checks that it does not load scipy.stats).
    from scipy.stats import binomtest

    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)
