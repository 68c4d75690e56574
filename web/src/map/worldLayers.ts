/**
 * The world from world-atlas (Natural Earth 1:110m, bundled as assets: no tiles from the
 * internet): land as a light fill under the data and an outline over it, country borders, and
 * a labelled graticule, so a map reads as a place before and under any data.
 */
import type { FeatureCollection, MultiLineString, MultiPolygon, Polygon, Position } from "geojson";
import GeoJSON from "ol/format/GeoJSON.js";
import Graticule from "ol/layer/Graticule.js";
import VectorLayer from "ol/layer/Vector.js";
import VectorSource from "ol/source/Vector.js";
import { Fill, Stroke, Style } from "ol/style.js";
import { feature, mesh } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
import countriesUrl from "world-atlas/countries-110m.json?url";
import landUrl from "world-atlas/land-110m.json?url";

/** Web Mercator ends at ±85.0511°; Antarctica's ring reaches -90, which would project to infinity. */
const MAX_LAT = 85.0511;

/**
 * Rings that cross the antimeridian (Chukotka, Fiji) jump from +179° to -179°; drawn as they
 * are, they streak across the map. Make each such ring continuous (past 180°) and add a copy
 * 360° west, so both halves show. Jumps along a pole (Antarctica's edge) are real and stay.
 */
function fixRing(ring: Position[]): Position[][] {
  const out: Position[] = [];
  let shift = 0;
  let crossed = false;
  ring.forEach(([x, y], i) => {
    const prev = ring[i - 1];
    if (prev && Math.abs(x - prev[0]) > 180 && Math.abs(y) < 89 && Math.abs(prev[1]) < 89) {
      shift += x < prev[0] ? 360 : -360;
      crossed = true;
    }
    out.push([x + shift, Math.max(-MAX_LAT, Math.min(MAX_LAT, y))]);
  });
  if (!crossed) return [out];
  const east = Math.min(...out.map((p) => p[0])) >= -180;
  return [out, out.map(([x, y]) => [x + (east ? -360 : 360), y])];
}

/** Every polygon with its rings fixed; a crossing outer ring becomes two polygons. */
function fixGeometry(g: Polygon | MultiPolygon): MultiPolygon {
  const polygons = g.type === "Polygon" ? [g.coordinates] : g.coordinates;
  const fixed: Position[][][] = [];
  for (const rings of polygons) {
    const [outer, ...holes] = rings.map(fixRing);
    outer.forEach((copy, k) => fixed.push([copy, ...holes.map((h) => h[k] ?? h[0])]));
  }
  return { type: "MultiPolygon", coordinates: fixed };
}

let land: Promise<VectorSource> | undefined;

/** One source for every map: the features are read once. */
function landSource(): Promise<VectorSource> {
  land ??= fetch(landUrl)
    .then((r) => r.json() as Promise<Topology<{ land: GeometryCollection }>>)
    .then((topology) => {
      const collection = feature(topology, topology.objects.land) as FeatureCollection<Polygon | MultiPolygon>;
      const fixed: FeatureCollection = {
        type: "FeatureCollection",
        features: collection.features.map((f) => ({ ...f, geometry: fixGeometry(f.geometry) })),
      };
      const features = new GeoJSON().readFeatures(fixed, { dataProjection: "EPSG:4326", featureProjection: "EPSG:3857" });
      return new VectorSource({ features });
    });
  return land;
}

let borders: Promise<VectorSource> | undefined;

/** The borders between countries (each shared edge once), as lines. */
function bordersSource(): Promise<VectorSource> {
  borders ??= fetch(countriesUrl)
    .then((r) => r.json() as Promise<Topology<{ countries: GeometryCollection }>>)
    .then((topology) => {
      const lines = mesh(topology, topology.objects.countries, (a, b) => a !== b) as MultiLineString;
      const clamped = lines.coordinates.map((line) => line.map(([x, y]) => [x, Math.max(-MAX_LAT, Math.min(MAX_LAT, y))]));
      const features = new GeoJSON().readFeatures(
        { type: "Feature", properties: {}, geometry: { type: "MultiLineString", coordinates: clamped } },
        { dataProjection: "EPSG:4326", featureProjection: "EPSG:3857" },
      );
      return new VectorSource({ features });
    });
  return borders;
}

export interface WorldLayers {
  under: VectorLayer;
  over: VectorLayer;
  borders: VectorLayer;
  graticule: Graticule;
}

export function worldLayers(): WorldLayers {
  const under = new VectorLayer({ style: new Style({ fill: new Fill({ color: "#e4e1da" }) }), zIndex: 0 });
  const over = new VectorLayer({ style: new Style({ stroke: new Stroke({ color: "rgba(40, 40, 40, 0.7)", width: 0.8 }) }), zIndex: 2 });
  const borderLines = new VectorLayer({
    style: new Style({ stroke: new Stroke({ color: "rgba(60, 60, 60, 0.45)", width: 0.6 }) }),
    zIndex: 2,
  });
  const graticule = new Graticule({
    strokeStyle: new Stroke({ color: "rgba(60, 70, 80, 0.25)", width: 0.6 }),
    showLabels: true,
    wrapX: false,
    zIndex: 2,
  });
  void landSource().then((source) => {
    under.setSource(source);
    over.setSource(source);
  });
  void bordersSource().then((source) => borderLines.setSource(source));
  return { under, over, borders: borderLines, graticule };
}
