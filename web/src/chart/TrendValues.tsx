/**
 * A trend raster's bands at a point, as labelled values with their units: the slope also per
 * year and per decade when the trend runs along time (SPEC §8's x is in days, so a slope is
 * per day; a year is 365.25 days).
 */
import type { TrendAttribute } from "../api/types.js";
import { formatNumber, isTime } from "../format.js";
import { DAYS_PER_DECADE, DAYS_PER_YEAR, slopeBandOf } from "./trendFit.js";

/** Bands measured in the variable's own unit; the others (R2, p-values, scores) have none. */
const IN_VARIABLE_UNIT = /^(Intercept|RMSE|Harmonic_(sin|cos)\d+|Polynomial_0)$/;

/** The unit of one of a trend's bands: the variable's, per day (or per unit of x) for slopes, or none. */
export function bandUnit(band: string, trend: TrendAttribute, dimensionUnit?: string): string {
  return unitOf(band, trend, perUnit(trend, dimensionUnit));
}

const perUnit = (trend: TrendAttribute, dimensionUnit?: string) =>
  isTime(trend.dimension) ? "day" : dimensionUnit || `unit of ${trend.dimension}`;

function unitOf(band: string, trend: TrendAttribute, per: string): string {
  const unit = trend.variableUnit ?? "";
  if (IN_VARIABLE_UNIT.test(band)) return unit;
  if (band === slopeBandOf(trend)) return `${unit} per ${per}`.trim();
  const power = /^Polynomial_(\d+)$/.exec(band)?.[1];
  if (power) return `${unit} per ${per}^${power}`.trim();
  return "";
}

export function TrendValues(props: { trend: TrendAttribute; values: readonly (number | null)[]; title: string; dimensionUnit?: string }) {
  const { trend, values, title } = props;
  const time = isTime(trend.dimension);
  const per = perUnit(trend, props.dimensionUnit);
  const slopeBand = slopeBandOf(trend);
  return (
    <figure class="trend-values" data-model={trend.model}>
      <figcaption>{title}</figcaption>
      <table>
        <thead>
          <tr>
            <th scope="col">Band</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {(trend.bands ?? []).map((band, i) => {
            const value = values[i];
            const unit = unitOf(band, trend, per);
            return (
              <tr key={band} data-band={band}>
                <th scope="row">{band}</th>
                <td data-value={value ?? ""}>
                  {value === null || value === undefined ? "no data" : `${formatNumber(value)}${unit ? ` ${unit}` : ""}`}
                  {band === slopeBand && time && value !== null && value !== undefined && (
                    <span class="rates">
                      <span data-per="year">{`${formatNumber(value * DAYS_PER_YEAR)} ${unit.replace(/day$/, "year")}`}</span>
                      <span data-per="decade">{`${formatNumber(value * DAYS_PER_DECADE)} ${unit.replace(/day$/, "decade")}`}</span>
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </figure>
  );
}
