/** A valid service name (letters, digits, underscores) made from a title or file name. */
export function suggestServiceName(title: string): string {
  const base = title
    .replace(/\.[A-Za-z0-9]+$/, "")
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return (base || "raster").slice(0, 120);
}
