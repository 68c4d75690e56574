/**
 * Keywords as people read them, shown with the keyword itself beside (the REST API's word,
 * which the server validates and documents): "Ranges of values (BY_RANGES)". Labels follow
 * the parameter where a keyword means different things (ALL slices, ALL of the period).
 */

const BY_PARAMETER: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  dimensionDefinition: {
    ALL: "All slices",
    BY_VALUE: "Chosen values",
    BY_RANGES: "Ranges of values",
    BY_ITERATION: "Repeating windows",
    BY_INTERVAL: "From a start to an end, every interval",
  },
  method: {
    DIFFERENCE_FROM_MEAN: "Difference from the mean",
    PERCENT_DIFFERENCE_FROM_MEAN: "Percent difference from the mean",
    PERCENT_OF_MEAN: "Percent of the mean",
    Z_SCORE: "Standard score (z)",
    DIFFERENCE_FROM_MEDIAN: "Difference from the median",
    PERCENT_DIFFERENCE_FROM_MEDIAN: "Percent difference from the median",
    PERCENT_OF_MEDIAN: "Percent of the median",
  },
  calculationInterval: {
    ALL: "One reference over the whole period",
    YEARLY: "A reference per year",
    RECURRING_MONTHLY: "A reference per calendar month",
    RECURRING_WEEKLY: "A reference per week of the year",
    RECURRING_DAILY: "A reference per day of the year",
    HOURLY: "A reference per hour",
    EXTERNAL_RASTER: "A reference raster you choose",
  },
  trendLineType: {
    LINEAR: "Straight line",
    POLYNOMIAL: "Polynomial curve",
    HARMONIC: "Harmonic (a seasonal cycle and a trend)",
    "MANN-KENDALL": "Mann-Kendall test (Sen's slope)",
    "SEASONAL-KENDALL": "Seasonal Kendall test",
  },
  seasonalPeriod: { DAYS: "Days of the year", MONTHS: "Calendar months" },
  cellSize: { MAXOF: "Largest input cell size", MINOF: "Smallest input cell size" },
  resamplingMethod: { NEAREST: "Nearest neighbour", BILINEAR: "Bilinear", CUBIC: "Cubic convolution" },
  compression: { ZSTD: "Compressed", NONE: "Raw values: faster, larger" },
};

/** "RECURRING_MONTHLY" → "Recurring monthly": for keywords no table names. */
const humanize = (keyword: string) => {
  const words = keyword.toLowerCase().replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export function keywordLabel(parameter: string, keyword: string): string {
  return BY_PARAMETER[parameter]?.[keyword.toUpperCase()] ?? humanize(keyword);
}

/** What an option shows: the label with the keyword beside it. */
export const keywordOption = (parameter: string, keyword: string) => `${keywordLabel(parameter, keyword)} (${keyword})`;
