/** A service's variables with their units and dimensions (how many values, from – to). */
import type { Variable } from "../api/types.js";
import { formatValue } from "../format.js";

export function VariablesTable(props: { variables: readonly Variable[] }) {
  return (
    <table class="variables">
      <caption>Variables and dimensions</caption>
      <thead>
        <tr>
          <th scope="col">Variable</th>
          <th scope="col">Unit</th>
          <th scope="col">Dimension</th>
          <th scope="col">Values</th>
          <th scope="col">From – to</th>
        </tr>
      </thead>
      <tbody>
        {props.variables.flatMap((v) =>
          (v.dimensions.length ? v.dimensions : [undefined]).map((d, i) => (
            <tr key={`${v.name}/${d?.name ?? ""}`} data-variable={v.name}>
              {i === 0 && (
                <>
                  <th scope="row" rowSpan={Math.max(1, v.dimensions.length)}>
                    {v.name}
                    {v.description ? <div class="muted">{v.description}</div> : null}
                  </th>
                  <td rowSpan={Math.max(1, v.dimensions.length)}>{v.unit ?? ""}</td>
                </>
              )}
              <td>{d?.name ?? "—"}</td>
              <td>{d ? d.values.length : ""}</td>
              <td>
                {d && d.values.length ? `${formatValue(d.name, d.values[0])} – ${formatValue(d.name, d.values[d.values.length - 1])}` : ""}
              </td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}
