#!/usr/bin/env python3
"""Write test/golden/analysis/distributions.json: reference values of the two distribution
functions the trend statistics use (src/analysis/statDistributions.ts), computed with mpmath at
60 significant digits, never with Strata:

  erfc          erfc(x)                                  Mann-Kendall / Seasonal-Kendall p = erfc(|Z|/sqrt 2)
  tTwoSided     P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2) linear / polynomial / harmonic slope p-values

over grids that reach both tails (p down to ~1e-300) and degrees of freedom from 1 to 1e7.
scipy (scipy.special.erfc, 2 * scipy.stats.t.sf) is printed beside mpmath as a cross-check.

Regenerate (from the repository root; needs mpmath and scipy):

    python3 scripts/goldens/make_distribution_goldens.py
"""
import json
import math
from pathlib import Path

import mpmath
from scipy import special, stats

mpmath.mp.dps = 60
OUT = Path(__file__).resolve().parents[2] / "test" / "golden" / "analysis" / "distributions.json"

ERFC_X = [-6, -3, -1.5, -0.5, -1e-3, 0, 1e-8, 1e-3, 0.1, 0.3, 0.5, 0.8, 1, 1.2, 1.22, 1.23, 1.25, 1.5, 2, 2.5, 3,
          4, 5, 6, 8, 10, 15, 20, 25, 26.5]
T_DF = [1, 2, 3, 4, 5, 7, 10, 15, 22, 30, 50, 100, 250, 1000, 1e4, 1e5, 1e7]
T_T = [0, 1e-6, 0.01, 0.1, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 20, 50, 100, 1e3, 1e5]


def main() -> None:
    erfc = []
    for x in ERFC_X:
        want = float(mpmath.erfc(mpmath.mpf(x)))
        erfc.append({"x": x, "erfc": want})
        check(want, float(special.erfc(x)), f"erfc({x})")
    t_two_sided = []
    for df in T_DF:
        for t in T_T:
            d = mpmath.mpf(df)
            tt = mpmath.mpf(t)
            # I_x(df/2, 1/2) at x = df/(df+t^2); P(|T| >= 0) = 1.
            p = 1.0 if t == 0 else float(t_two_sided_p(tt, d))
            if p < 1e-300:
                # Below what a double holds (or subnormal): not a useful reference; scipy agrees.
                assert stats.t.sf(t, df) < 1e-290, (t, df)
                continue
            t_two_sided.append({"t": t, "df": df, "p": p})
            check(p, float(2 * stats.t.sf(t, df)), f"t={t} df={df}")
    OUT.write_text(json.dumps({"source": "mpmath %s, 60 digits" % mpmath.__version__, "erfc": erfc, "tTwoSided": t_two_sided}, indent=1) + "\n")
    print(f"wrote {OUT} ({len(erfc)} erfc, {len(t_two_sided)} t values)")


def t_two_sided_p(t: mpmath.mpf, df: mpmath.mpf) -> mpmath.mpf:
    """I_{df/(df+t^2)}(df/2, 1/2); where mpmath's hypergeometric series gives up (large df), twice
    the integral of the density from t to infinity."""
    try:
        return mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True)
    except (ValueError, mpmath.libmp.libhyper.NoConvergence):
        log_c = mpmath.loggamma((df + 1) / 2) - mpmath.loggamma(df / 2) - mpmath.log(df * mpmath.pi) / 2
        density = lambda u: mpmath.exp(log_c - (df + 1) / 2 * mpmath.log1p(u * u / df))
        return 2 * mpmath.quad(density, [t, t + 0.1, t + 1, t + 10, mpmath.inf])


def check(want: float, scipy_value: float, what: str) -> None:
    """Report where scipy and mpmath disagree by more than 1e-9 relative (information only)."""
    if want != 0 and abs(scipy_value - want) > 1e-9 * abs(want):
        print(f"  scipy differs at {what}: mpmath {want!r}, scipy {scipy_value!r}")


if __name__ == "__main__":
    main()
