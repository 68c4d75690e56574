/**
 * What a client-bound token is bound to, and whether a request matches it.
 *
 * Referer: ArcGIS REST JS asks for a token with `referer = window.location.origin` (older
 * clients: `location.host`), then browsers send the full page URL as the Referer header, so
 * the binding is compared at host granularity: "https://app.example/x/y" matches a token bound
 * to "https://app.example" or "app.example". Values that are not URLs or hosts (Node clients
 * send "@esri/arcgis-rest-js") must match exactly.
 * IP: IPv4-mapped IPv6 addresses ("::ffff:10.0.0.1") count as their IPv4 form.
 */

/**
 * @example
 * refererKey("https://App.example:8443/map.html"); // "app.example:8443"
 * refererKey("@esri/arcgis-rest-js");              // "@esri/arcgis-rest-js"
 */
export function refererKey(referer: string): string {
  const text = referer.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      return new URL(text).host;
    } catch {
      return text;
    }
  }
  const host = /^([a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?)\/?$/i.exec(text);
  return host ? host[1].toLowerCase() : text;
}

/**
 * @example
 * ipKey("::ffff:192.0.2.7"); // "192.0.2.7"
 */
export function ipKey(ip: string): string {
  const text = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/.exec(text);
  return mapped ? mapped[1] : text;
}
