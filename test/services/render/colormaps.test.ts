/**
 * Tests of the colour ramps and value colormaps (src/services/render/colormaps.ts). The
 * reference colours are matplotlib 3.6's own tables (cmap(i / 255) rounded to bytes), sampled at
 * every fifth index; the ramps must match them within one unit per channel.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { RAMP_NAMES, colorRamp, colormapLookup, isDivergingRamp, rampFromColors } from "../../../src/services/render/colormaps.js";

/** matplotlib colours at indices 0, 5, 10, ..., 255, as rrggbb. */
const MATPLOTLIB: Record<string, string> = {
  viridis:
    "44015446085c471063481769481d6f482475472a7a46307e453781433d844142873f48893d4e8a3a538b38598c355e8d33638d31688e2e6d8e2c718e2a768e297b8e27808e25848e23898e218e8d20928c1f978b1e9c891fa18821a58524aa8328ae802eb37c35b7793dbc7446c06f50c46a5ac86465cb5e70cf577cd25089d54895d840a2da37b0dd2fbddf26cae11fd8e219e5e419f1e51dfde725",
  magma:
    "00000402020b0504160907200e0b2b140e361a104221114e29115a311165390f6e420f754a107952137c5a167e6219806a1c81721f81792282812581892881912b81992d80a1307eaa337db2357bba3878c23b75ca3e72d2426fd9466be04c67e75263ec5860f1605df4695cf7725cf97b5dfb8560fc8e64fd9869fea16efeaa74feb47bfebd82fec68afecf92fed89afde2a3fdebacfcf4b6fcfdbf",
  inferno:
    "00000402020c0504170a072210092d160b391e0c45260c512f0a5b380962400a67490b6a510e6c59106e61136e69166e71196e781c6d801f6c88226a902568982766a02a63a82e5fb0315bb73557bf3952c63d4dcc4248d34743d94d3ddf5337e45a31e9612bed6925f1711ff47918f78212f98b0bfa9407fb9d07fca60cfcb014fbba1ffac42af8cd37f6d746f4e156f2ea69f2f27df5f992fcffa4",
  plasma:
    "0d08871b068d2605912f059638049a41049d4903a05102a35901a56100a76900a87100a87801a88004a88707a68e0ca49511a19c179ea21d9aa82296ae2892b42e8dba3388bf3984c43e7fc9447acd4a76d24f71d6556dda5b69de6164e26660e66c5ce97257ed7953f07f4ff3854bf58c46f79342f99a3efba139fca835fdaf31feb72dfebe2afdc627fcce25fbd724f8df25f6e826f3f027f0f921",
  cividis:
    "00224e002656002a5f002d68003070083370163770203a6f273e6e2e416d34456c3a486c3f4c6c444f6c49536c4e566c535a6d575d6d5c616e60646f656870696b716d6f727272747676767a7a787e7d788381798885788d8878928c789690779b9476a09875a59c74aaa073afa471b5a86fbaac6dbfb06bc4b468c9b965cfbd62d4c15fdac65bdfca57e5cf52ead34cf0d846f6dd3ffce236fee838",
  RdBu: "67001f760521840924930e26a21328b1182bb82531bf3338c6413ece4f45d55d4cdb6b55e17860e6866aec9374f2a17ff5ac8bf7b799f9c2a7fbccb4fcd7c2fcdecdfbe4d6fae9dff9efe9f8f4f2f3f5f6ecf2f5e4eef4ddebf2d5e7f1cce2efc0dcebb3d6e8a7d0e49bc9e08dc2dc7eb8d76eaed25fa5cd4f9bc74291c23b88be3480b92e77b5276eb02065ab1b5a9c15508d10457e0a3b70053061",
  BrBG: "5430055f36066a3d07754308804a098b500a9559109f6317a96c1eb37625bd7f2cc48b3aca9849d1a559d7b169ddbe78e2c787e7cf94ebd6a2f0deb0f4e5bef6eac9f6ecd3f5efdcf5f1e6f5f4f0f0f4f3e7f2f0def0edd5edeaccebe7c1e8e2b4e2dba6dcd498d7cd8ad1c67ccabe6dbfb45eb5aa4faaa1419f9733958d298b831f827a1478700a6f6701655d015d5401554b004c42004439003c30",
  Spectral:
    "9e0142a90d45b41947be254ac9314cd43d4fda464de1504be75948ed6246f36b43f57748f7844ef99153fb9d59fcaa5ffdb567fdbf6ffec877fed27ffedc88fee491feea9bfff0a6fff6b0fffcbafdfebbf8fcb4f3faaceef8a4e9f69de1f399d6ee9bcaea9ebfe5a0b3e0a2a7dba499d6a48cd1a47ecca571c6a564c0a65ab4ab50a9af459eb43b92b93387bc3b7cb74471b24d65ad555aa75e4fa2",
};

const hex = (lut: Uint8Array, i: number): string =>
  Array.from(lut.subarray(i * 3, i * 3 + 3), (b) => b.toString(16).padStart(2, "0")).join("");

test("viridis starts at #440154 and ends at #fde725, matplotlib's published endpoints", () => {
  const lut = colorRamp("viridis");
  assert.equal(lut.length, 768);
  assert.equal(hex(lut, 0), "440154");
  assert.equal(hex(lut, 255), "fde725");
});

test("every ramp matches matplotlib within one unit per channel at every fifth index", () => {
  for (const [name, table] of Object.entries(MATPLOTLIB)) {
    const lut = colorRamp(name);
    for (let k = 0; k * 6 < table.length; k++) {
      const i = k * 5;
      for (let ch = 0; ch < 3; ch++) {
        const want = parseInt(table.slice(k * 6 + ch * 2, k * 6 + ch * 2 + 2), 16);
        const got = lut[i * 3 + ch];
        assert.ok(Math.abs(got - want) <= 1, `${name}[${i}] channel ${ch}: ${got} vs matplotlib ${want}`);
      }
    }
  }
});

test("gray is the identity ramp", () => {
  const lut = colorRamp("gray");
  for (let i = 0; i < 256; i++) assert.deepEqual([...lut.subarray(i * 3, i * 3 + 3)], [i, i, i]);
});

test("RdBu runs red -> near-white -> blue; RdBu_r is blue for negative and red for positive", () => {
  const rdbu = colorRamp("RdBu");
  assert.equal(hex(rdbu, 0), "67001f");
  assert.equal(hex(rdbu, 255), "053061");
  for (const i of [127, 128])
    for (let ch = 0; ch < 3; ch++) assert.ok(rdbu[i * 3 + ch] >= 240, `RdBu[${i}] is near white: ${hex(rdbu, i)}`);
  const r = colorRamp("RdBu_r");
  assert.equal(hex(r, 0), "053061");
  assert.equal(hex(r, 255), "67001f");
  for (let i = 0; i < 256; i++) assert.equal(hex(r, i), hex(rdbu, 255 - i));
});

test("names match case-insensitively and any ramp reverses with _r", () => {
  assert.deepEqual(colorRamp("VIRIDIS"), colorRamp("viridis"));
  assert.deepEqual(colorRamp("spectral"), colorRamp("Spectral"));
  assert.equal(hex(colorRamp("viridis_r"), 0), "fde725");
  assert.equal(hex(colorRamp("Gray_R"), 0), "ffffff");
});

test("colorRamp returns a copy that callers may change", () => {
  const a = colorRamp("magma");
  a.fill(0);
  assert.equal(hex(colorRamp("magma"), 255), "fcfdbf");
});

test("an unknown ramp is a RangeError naming it and the known ramps", () => {
  assert.throws(
    () => colorRamp("jet"),
    (e: unknown) => {
      assert.ok(e instanceof RangeError);
      assert.match(e.message, /"jet"/);
      for (const name of RAMP_NAMES) assert.ok(e.message.includes(name), `lists ${name}: ${e.message}`);
      return true;
    },
  );
});

test("RAMP_NAMES holds the sequential and diverging ramps, and isDivergingRamp tells them apart", () => {
  for (const name of ["viridis", "magma", "inferno", "plasma", "cividis", "gray", "RdBu", "BrBG", "Spectral"])
    assert.ok(RAMP_NAMES.includes(name), name);
  for (const name of ["RdBu", "RdBu_r", "brbg", "Spectral"]) assert.equal(isDivergingRamp(name), true, name);
  for (const name of ["viridis", "gray", "cividis_r", "nonesuch"]) assert.equal(isDivergingRamp(name), false, name);
});

test("rampFromColors spreads colours evenly and interpolates between them", () => {
  assert.deepEqual(
    rampFromColors([
      [0, 0, 0],
      [255, 255, 255],
    ]),
    colorRamp("gray"),
  );
  const bwr = rampFromColors([
    [0, 0, 255],
    [255, 255, 255],
    [255, 0, 0],
  ]);
  assert.equal(hex(bwr, 0), "0000ff");
  assert.equal(hex(bwr, 255), "ff0000");
  // The middle colour sits at 127.5: index 127 is one half-step short of white.
  assert.equal(hex(bwr, 127), "fefeff");
  assert.equal(hex(bwr, 128), "fffefe");
  assert.deepEqual(
    rampFromColors([[10, 20, 30]]),
    new Uint8Array(768).map((_, i) => [10, 20, 30][i % 3]),
  );
});

test("rampFromColors refuses an empty list and channels outside 0..255", () => {
  assert.throws(() => rampFromColors([]), /at least one colour/);
  assert.throws(
    () =>
      rampFromColors([
        [0, 0, 0],
        [256, 0, 0],
      ]),
    /colour 1 is not \[r, g, b\]/,
  );
  assert.throws(() => rampFromColors([[0, 0.5, 0]]), RangeError);
});

test("colormapLookup gives listed integer values their exact colour and nothing else a colour", () => {
  const cm = colormapLookup([
    [1, 255, 0, 0],
    [2, 0, 255, 0],
    [5, 0, 0, 255],
    [2, 1, 2, 3], // listed again: the last colour wins
  ]);
  assert.equal(cm.colorOf(1), 0xff0000);
  assert.equal(cm.colorOf(2), 0x010203);
  assert.equal(cm.colorOf(5), 0x0000ff);
  for (const v of [0, 3, 4, 6, 1.5, -1, NaN, Infinity]) assert.equal(cm.colorOf(v), -1, String(v));
});

test("colormapLookup handles sparse values spread far apart", () => {
  const cm = colormapLookup([
    [-1e9, 1, 1, 1],
    [1e9, 2, 2, 2],
  ]);
  assert.equal(cm.colorOf(-1e9), 0x010101);
  assert.equal(cm.colorOf(1e9), 0x020202);
  assert.equal(cm.colorOf(0), -1);
});

test("colormapLookup refuses malformed entries", () => {
  assert.throws(() => colormapLookup([]), /at least one/);
  assert.throws(() => colormapLookup([[1.5, 0, 0, 0]]), /entry 0: the value 1.5 is not an integer/);
  assert.throws(
    () =>
      colormapLookup([
        [1, 0, 0, 0],
        [2, 0, 300, 0],
      ]),
    /colormap entry 1 is not \[r, g, b\]/,
  );
  assert.throws(() => colormapLookup([[1, 0, 0] as unknown as [number, number, number, number]]), /entry 0 is not \[value, r, g, b\]/);
});
