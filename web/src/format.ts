/** Dimension values as people read them: StdTime as a UTC date (and time when not midnight). */

export const isTime = (dimension: string) => dimension === "StdTime";

export function formatTime(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  const iso = d.toISOString();
  const date = iso.slice(0, iso.indexOf("T"));
  const time = iso.slice(iso.indexOf("T") + 1, iso.indexOf("T") + 6);
  return time === "00:00" ? date : `${date} ${time}`;
}

export function formatValue(dimension: string, value: number): string {
  return isTime(dimension) ? formatTime(value) : formatNumber(value);
}

/** A data value: a few significant digits, no exponent for everyday magnitudes. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e6)) return value.toExponential(2);
  return String(Number(value.toPrecision(4)));
}

/** Seconds as "42 s", "3 min 5 s", "1 h 2 min". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
