/**
 * The two distribution functions the trend statistics need, implemented here so the server
 * takes no numerical dependency:
 *
 * - the normal distribution through erfc (Mann-Kendall and Seasonal-Kendall p-values), accurate
 *   to about 1e-14 relative over the whole range (series for erf below x² = 1.5, Legendre's
 *   continued fraction for erfc above, both evaluated to machine precision);
 * - Student's t distribution through the regularized incomplete beta function I_x(a, b)
 *   (Numerical Recipes' `betai`: a modified-Lentz continued fraction, taken on the side where
 *   it converges fast), with ln Γ by Lanczos (g = 7, 9 terms, ~1e-15 relative).
 *
 * ```ts
 * normalCdf(1.959963984540054); // 0.975
 * tTwoSidedP(2.228138851986, 10); // 0.05
 * ```
 */

const SQRT_PI = Math.sqrt(Math.PI);
const EPS = 1e-16;
const TINY = 1e-300;

const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/**
 * ln Γ(x) for x > 0 (Lanczos approximation, reflection below 1/2).
 * @example
 * lnGamma(0.5); // ln √π = 0.5723649429247001
 */
export function lnGamma(x: number): number {
  if (!(x > 0)) return NaN;
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0];
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i] / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * The complementary error function erfc(x) = 1 − erf(x), to ~1e-14 relative.
 * @example
 * erfc(1); // 0.15729920705028513
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  const x2 = x * x;
  if (x2 < 1.5) return 1 - erfSeries(x, x2);
  if (x > 27.3) return 0; // below the smallest double
  // erfc(x) = Q(1/2, x²): Legendre's continued fraction for the upper incomplete gamma,
  // evaluated by the modified Lentz method (NR `gcf` with a = 1/2).
  const a = 0.5;
  let b = x2 + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return ((Math.exp(-x2) * x) / SQRT_PI) * h;
}

/** erf(x) = 2x/√π · e^(−x²) · Σ (2x²)^n / (1·3·…·(2n+1)): positive terms, no cancellation. */
function erfSeries(x: number, x2: number): number {
  let term = 1;
  let sum = 1;
  for (let n = 1; n < 200; n++) {
    term *= (2 * x2) / (2 * n + 1);
    sum += term;
    if (term < sum * EPS) break;
  }
  return ((2 * x) / SQRT_PI) * Math.exp(-x2) * sum;
}

/**
 * Φ(z), the standard normal CDF, through erfc (accurate in both tails).
 * @example
 * normalCdf(0); // 0.5
 */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/**
 * Two-sided normal p-value 2·(1 − Φ(|z|)), computed as erfc(|z|/√2) so small p-values keep
 * their relative accuracy.
 */
export function normalTwoSidedP(z: number): number {
  return erfc(Math.abs(z) / Math.SQRT2);
}

/**
 * The regularized incomplete beta function I_x(a, b), a, b > 0, 0 ≤ x ≤ 1.
 * @example
 * incompleteBeta(2, 3, 0.4); // 0.5248
 */
export function incompleteBeta(a: number, b: number, x: number): number {
  if (!(a > 0 && b > 0) || Number.isNaN(x)) return NaN;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return betaRegularized(a, b, x, 1 - x, Math.log(x), Math.log1p(-x));
}

/** I_x(a, b) given x, y = 1 − x and their logarithms, each computed as accurately as the caller can. */
function betaRegularized(a: number, b: number, x: number, y: number, lnX: number, lnY: number): number {
  const lnFront = lnBetaInverse(a, b) + a * lnX + b * lnY;
  // The continued fraction converges rapidly for x < (a+1)/(a+b+2); use symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaContinuedFraction(a, b, x)) / a;
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(b, a, y)) / b;
}

/**
 * −ln B(a, b) = ln Γ(a+b) − ln Γ(a) − ln Γ(b). When one argument is large the first two terms
 * are huge and nearly equal, so their difference is taken from Stirling's series directly.
 */
function lnBetaInverse(a: number, b: number): number {
  const big = Math.max(a, b);
  const small = Math.min(a, b);
  if (big < 100) return lnGamma(a + b) - lnGamma(a) - lnGamma(b);
  // ln Γ(z) = (z − ½)ln z − z + ½ln 2π + S(z) (stirlingSeries).
  const z = big + small;
  const ratio = (big - 0.5) * Math.log1p(small / big) + small * Math.log(z) - small + stirlingSeries(z) - stirlingSeries(big);
  return ratio - lnGamma(small);
}

/** S(z) = 1/(12z) − 1/(360z³) + 1/(1260z⁵) − 1/(1680z⁷), Stirling's correction (z ≥ 100). */
function stirlingSeries(z: number): number {
  const z2 = z * z;
  return (1 / z) * (1 / 12 - (1 / z2) * (1 / 360 - (1 / z2) * (1 / 1260 - 1 / (1680 * z2))));
}

/** NR `betacf`: the continued fraction of I_x(a, b) by the modified Lentz method. */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/**
 * Two-sided p-value of Student's t with `df` degrees of freedom: P(|T| ≥ |t|) =
 * I_{df/(df+t²)}(df/2, 1/2). Infinite |t| gives 0; NaN gives NaN.
 * @example
 * tTwoSidedP(2.228138851986, 10); // 0.05
 */
export function tTwoSidedP(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (!Number.isFinite(t)) return 0;
  const t2 = t * t;
  // x = df/(df+t²), 1 − x = t²/(df+t²); their logarithms through log1p, which keeps
  // a·ln x accurate when a = df/2 is large and x close to 1.
  const r = t2 / df;
  if (r === 0) return 1;
  return betaRegularized(df / 2, 0.5, 1 / (1 + r), r / (1 + r), -Math.log1p(r), Math.log(r) - Math.log1p(r));
}

/**
 * Student's t CDF P(T ≤ t).
 * @example
 * tCdf(2.228138851986, 10); // 0.975
 */
export function tCdf(t: number, df: number): number {
  const p = tTwoSidedP(t, df) / 2;
  return t >= 0 ? 1 - p : p;
}
