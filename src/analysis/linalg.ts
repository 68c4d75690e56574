/**
 * Householder QR for the small dense least-squares problems of the trend fits (a few
 * hundred rows, at most a few dozen columns). Matrices are column-major Float64Arrays:
 * element (i, j) of an m × p matrix is at `a[i + j * m]`.
 *
 * QR rather than the normal equations: the normal equations square the condition number
 * (about 1e4 for a degree-5 polynomial on [-1, 1] becomes 1e8), QR keeps it, for the same
 * O(m·p²) cost at these sizes.
 *
 * ```ts
 * const a = Float64Array.of(1, 1, 1, 0, 1, 2); // 3 × 2: columns [1,1,1] and [0,1,2]
 * const qr = qrFactor(a, 3, 2);
 * const coef = new Float64Array(2);
 * qrSolve(qr, Float64Array.of(1, 3, 5), coef); // coef = [1, 2]
 * ```
 */

export interface QrFactorization {
  readonly m: number;
  readonly p: number;
  /** R above the diagonal, the Householder vectors on and below it (column-major m × p). */
  readonly h: Float64Array;
  /** 2 / ‖v_k‖² of each Householder vector (0 when the column was already zero). */
  readonly beta: Float64Array;
  /** The diagonal of R. */
  readonly rdiag: Float64Array;
  /** False when a diagonal element of R is negligible against its column: no unique fit. */
  readonly fullRank: boolean;
}

/** Relative size below which a diagonal element of R makes the problem rank deficient. */
export const RANK_TOLERANCE = 1e-10;

/**
 * Factor the m × p column-major matrix `a` (m ≥ p) in place: a = QR.
 * @example
 * const qr = qrFactor(Float64Array.of(1, 1, 1, 0, 1, 2), 3, 2);
 */
export function qrFactor(a: Float64Array, m: number, p: number): QrFactorization {
  const beta = new Float64Array(p);
  const rdiag = new Float64Array(p);
  let fullRank = m >= p;
  let largest = 0;
  for (let j = 0; j < p; j++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += a[i + j * m] * a[i + j * m];
    largest = Math.max(largest, Math.sqrt(s));
  }
  for (let k = 0; k < p && k < m; k++) {
    const col = k * m;
    let norm = 0;
    for (let i = k; i < m; i++) norm += a[col + i] * a[col + i];
    norm = Math.sqrt(norm);
    if (norm === 0) {
      rdiag[k] = 0;
      beta[k] = 0;
      fullRank = false;
      continue;
    }
    const xk = a[col + k];
    const alpha = xk > 0 ? -norm : norm;
    const v0 = xk - alpha;
    a[col + k] = v0;
    const vnorm2 = 2 * norm * (norm + Math.abs(xk)); // ‖v‖² = v0² + Σ_{i>k} x_i², without cancellation
    beta[k] = vnorm2 > 0 ? 2 / vnorm2 : 0;
    rdiag[k] = alpha;
    for (let j = k + 1; j < p; j++) {
      const cj = j * m;
      let s = 0;
      for (let i = k; i < m; i++) s += a[col + i] * a[cj + i];
      s *= beta[k];
      for (let i = k; i < m; i++) a[cj + i] -= s * a[col + i];
    }
    if (Math.abs(alpha) <= RANK_TOLERANCE * largest) fullRank = false;
  }
  return { m, p, h: a, beta, rdiag, fullRank };
}

/**
 * Least-squares coefficients of `y` (length m; overwritten with Qᵀy) into `out` (length p).
 * Call only on a full-rank factorization.
 */
export function qrSolve(qr: QrFactorization, y: Float64Array, out: Float64Array): void {
  const { m, p, h, beta, rdiag } = qr;
  for (let k = 0; k < p; k++) {
    if (beta[k] === 0) continue;
    const col = k * m;
    let s = 0;
    for (let i = k; i < m; i++) s += h[col + i] * y[i];
    s *= beta[k];
    for (let i = k; i < m; i++) y[i] -= s * h[col + i];
  }
  for (let j = p - 1; j >= 0; j--) {
    let s = y[j];
    for (let k = j + 1; k < p; k++) s -= h[j + k * m] * out[k];
    out[j] = s / rdiag[j];
  }
}

/**
 * The j-th diagonal element of (AᵀA)⁻¹ = R⁻¹R⁻ᵀ: the squared norm of row j of R⁻¹
 * (the variance factor of coefficient j).
 */
export function inverseGramDiagonal(qr: QrFactorization, j: number): number {
  const { m, p, h, rdiag } = qr;
  // Row j of R⁻¹: solve xᵀR = e_jᵀ, i.e. x_k = (δ_jk − Σ_{i<k} x_i R_ik) / R_kk for k ≥ j.
  const x = new Float64Array(p);
  let sum = 0;
  for (let k = j; k < p; k++) {
    let s = k === j ? 1 : 0;
    for (let i = j; i < k; i++) s -= x[i] * h[i + k * m];
    x[k] = s / rdiag[k];
    sum += x[k] * x[k];
  }
  return sum;
}
