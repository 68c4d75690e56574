/**
 * Stack cubes along a dimension they share (a folder of rasters, one or more slices each,
 * SPEC §4 folderId): the result is one cube whose variables' shared dimension holds every
 * member's values, sorted, and whose reads go to the member that holds each slice.
 */
import { dimensionInterval } from "./dimension.js";
import { InvalidInputError } from "./errors.js";
import { sameGrid } from "./grid.js";
import { type Cube, type Dimension, type Selection, type Slab, STD_TIME, type TypedArray, type Variable } from "./types.js";

/**
 * @example
 * const cube = stackCubes([jan, feb, mar], ["sst_jan", "sst_feb", "sst_mar"], "inputMultidimensionalRaster");
 */
export function stackCubes(cubes: readonly Cube[], names: readonly string[], parameter: string): Cube {
  if (cubes.length === 0) throw new InvalidInputError(`${parameter}: there is nothing to stack`, { parameter });
  const grid = cubes[0].grid;
  cubes.forEach((c, i) => {
    if (!sameGrid(c.grid, grid))
      throw new InvalidInputError(
        `${parameter}: ${names[i]} is on a different grid from ${names[0]}; stacked rasters must share one grid`,
        { parameter },
      );
  });
  const variableNames = cubes[0].variables.map((v) => v.name).filter((n) => cubes.every((c) => c.variables.some((v) => v.name === n)));
  if (variableNames.length === 0) throw new InvalidInputError(`${parameter}: the rasters share no variable`, { parameter });
  const dimensionName = sharedDimension(cubes, variableNames, names, parameter);
  const variables = variableNames.map((name) =>
    stackVariable(
      cubes.map((c) => c.variables.find((v) => v.name === name)!),
      dimensionName,
      names,
      parameter,
    ),
  );
  return {
    grid,
    variables,
    attributes: { ...cubes[0].attributes },
    skipped: [],
    close: async () => {
      await Promise.all(cubes.map((c) => c.close()));
    },
  };
}

/** StdTime if every member has it, else the first dimension they all have. */
function sharedDimension(cubes: readonly Cube[], variableNames: readonly string[], names: readonly string[], parameter: string): string {
  const dimsOf = (c: Cube) =>
    new Set(c.variables.filter((v) => variableNames.includes(v.name)).flatMap((v) => v.dimensions.map((d) => d.name)));
  const common = [...dimsOf(cubes[0])].filter((d) => cubes.every((c) => dimsOf(c).has(d)));
  if (common.length === 0)
    throw new InvalidInputError(`${parameter}: ${names.join(", ")} share no dimension to stack along`, { parameter });
  return common.includes(STD_TIME) ? STD_TIME : common[0];
}

function stackVariable(members: readonly Variable[], dimensionName: string, names: readonly string[], parameter: string): Variable {
  const first = members[0];
  const axis = first.dimensions.findIndex((d) => d.name === dimensionName);
  members.forEach((m, i) => {
    const same =
      m.dimensions.length === first.dimensions.length &&
      m.dimensions.every((d, k) => d.name === first.dimensions[k].name && (k === axis || sameValues(d, first.dimensions[k])));
    if (!same || m.pixelType !== first.pixelType) {
      throw new InvalidInputError(
        `${parameter}: variable ${first.name} of ${names[i]} does not match ${names[0]} (dimensions or pixel type differ)`,
        { parameter },
      );
    }
  });
  // Every slice of the stacked axis, sorted by value: which member holds it, at which index.
  const slices = members
    .flatMap((m, member) => m.dimensions[axis].values.map((value, index) => ({ value, member, index })))
    .sort((a, b) => a.value - b.value);
  for (let i = 1; i < slices.length; i++) {
    if (slices[i].value === slices[i - 1].value) {
      throw new InvalidInputError(
        `${parameter}: ${names[slices[i].member]} and ${names[slices[i - 1].member]} both hold ${dimensionName} = ${slices[i].value}`,
        { parameter },
      );
    }
  }
  const values = slices.map((s) => s.value);
  const stacked: Dimension = { ...first.dimensions[axis], values, ...dimensionInterval(values, dimensionName === STD_TIME) };
  if (stacked.interval === undefined) delete (stacked as { interval?: number }).interval;
  const dimensions = first.dimensions.map((d, k) => (k === axis ? stacked : d));

  async function read(selection: Selection = {}): Promise<Slab> {
    const ranges = dimensions.map((d, k) => selection.dims?.[k] ?? ([0, d.values.length] as const));
    const [a, b] = ranges[axis];
    if (!(Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b <= values.length && a < b)) {
      throw new RangeError(`${first.name} dimension ${dimensionName}: range [${a}, ${b}) is outside [0, ${values.length})`);
    }
    let out: TypedArray | undefined;
    let shape: number[] = [];
    for (let s = a; s < b; s++) {
      const { member, index } = slices[s];
      const part = await members[member].read({
        ...selection,
        dims: ranges.map((r, k) => (k === axis ? ([index, index + 1] as const) : r)),
      });
      if (!out) {
        shape = [...part.shape];
        shape[axis] = b - a;
        out = new (part.data.constructor as new (n: number) => TypedArray)(shape.reduce((x, y) => x * y, 1));
      }
      // The slab is [outer..., 1, inner...]: copy each inner block to its place along the axis.
      const inner = part.shape.slice(axis + 1).reduce((x, y) => x * y, 1);
      const outer = part.shape.slice(0, axis).reduce((x, y) => x * y, 1);
      for (let o = 0; o < outer; o++) out.set(part.data.subarray(o * inner, (o + 1) * inner) as never, (o * (b - a) + (s - a)) * inner);
    }
    return { data: out!, shape };
  }

  return { ...first, dimensions, nodata: first.nodata, read };
}

function sameValues(a: Dimension, b: Dimension): boolean {
  return a.values.length === b.values.length && a.values.every((v, i) => v === b.values[i]);
}
