import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidInputError, NotFoundError, PathEscapeError } from "../../src/cube/errors.js";
import { isInside, joinUrlInside } from "../../src/store/confine.js";
import { createDataStoreRegistry, parseDataStoreSpec, type DataStoreRegistry } from "../../src/store/dataStores.js";

// Layout (tmp is realpath'd so expectations match resolved paths):
//   tmp/outside/secret.txt, tmp/outside/dir/inner.txt
//   tmp/share/...            the file share "s", registered through tmp/share-link
//   tmp/cloud/...            the directory-backed cloud store "c"
let tmp: string;
let share: string;
let registry: DataStoreRegistry;

before(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), "strata-datastores-")));
  share = join(tmp, "share");
  await mkdir(join(tmp, "outside", "dir"), { recursive: true });
  await writeFile(join(tmp, "outside", "secret.txt"), "secret");
  await writeFile(join(tmp, "outside", "dir", "inner.txt"), "inner");

  await mkdir(join(share, "a", "b"), { recursive: true });
  await writeFile(join(share, "a", "b", "c.nc"), "c");
  await writeFile(join(share, "..."), "three dots");
  await writeFile(join(share, "..foo"), "dots foo");
  await writeFile(join(share, "t2m daily.nc"), "space");
  await writeFile(join(share, "100%.nc"), "percent");
  await writeFile(join(share, "%41.nc"), "percent-escape-looking name");
  await symlink("a/b", join(share, "link-in")); // stays inside
  await symlink("..", join(share, "a", "up")); // back to the share root: inside
  await symlink("../outside/secret.txt", join(share, "link-file-out"));
  await symlink("../outside", join(share, "link-dir-out"));
  await symlink(join(tmp, "outside"), join(share, "link-abs-out"));
  await symlink("../..", join(share, "a", "esc")); // a directory component escaping
  await symlink("../outside/nope.nc", join(share, "dangling-out"));
  await symlink("a/nope.nc", join(share, "dangling-in"));
  await symlink("loop2", join(share, "loop1"));
  await symlink("loop1", join(share, "loop2"));
  await symlink("share", join(tmp, "share-link"));

  await mkdir(join(tmp, "cloud"));
  await writeFile(join(tmp, "cloud", "x.zarr"), "x");

  registry = createDataStoreRegistry([
    { kind: "fileShare", name: "s", path: join(tmp, "share-link") },
    { kind: "cloudStore", name: "c", path: join(tmp, "cloud") },
    {
      kind: "cloudStore",
      name: "era5",
      url: "https://host.example/bucket/prefix",
    },
  ]);
});

after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

// Every traversal form we know of, as the part after "/fileShares/s/".
const TRAVERSALS: Array<[label: string, path: string]> = [
  ["parent", "../x"],
  ["parent to a real file", "../outside/secret.txt"],
  ["parent after a name", "a/../../x"],
  ["parent that would stay inside", "a/.."],
  ["bare parent", ".."],
  ["parent with trailing slash", "../"],
  ["dot then parent", "./../x"],
  ["dots around parent", "a/./../../x"],
  ["encoded dots", "%2e%2e/x"],
  ["encoded dots and slash, upper case", "%2E%2E%2Fx"],
  ["half-encoded dots", ".%2e/x"],
  ["other half-encoded dots", "%2e./x"],
  ["encoded parents deep", "a/%2e%2e/%2e%2e/x"],
  ["double-encoded dots", "%252e%252e/x"],
  ["double-encoded slash", "..%252fx"],
  ["double-encoded backslash", "..%255cx"],
  ["triple-encoded dots", "%25252e%25252e/x"],
  ["double-encoded NUL", "a%2500"],
  ["encoded slash after dots", "..%2fx"],
  ["encoded slash, upper case", "..%2Foutside/secret.txt"],
  ["backslash", "..\\x"],
  ["backslashes", "a\\..\\..\\x"],
  ["encoded backslash", "..%5cx"],
  ["encoded backslashes", "%5c..%5cx"],
  ["absolute after the prefix", "/etc/passwd"],
  ["encoded absolute", "%2fetc%2fpasswd"],
  ["encoded absolute, upper case", "%2Fetc/passwd"],
  ["NUL", "a/b/c.nc%00.txt"],
  ["bare NUL", "%00"],
  ["raw NUL", "a\u0000"],
  ["encoded newline", "a%0a"],
  ["raw DEL", "a\u007f"],
  ["symlinked file pointing outside", "link-file-out"],
  ["symlinked directory pointing outside", "link-dir-out"],
  ["file through a symlinked directory pointing outside", "link-dir-out/secret.txt"],
  ["nested file through an escaping directory", "link-dir-out/dir/inner.txt"],
  ["missing file through an escaping directory", "link-dir-out/nope.nc"],
  ["absolute symlink pointing outside", "link-abs-out/secret.txt"],
  ["directory component escaping", "a/esc/outside/secret.txt"],
  ["directory component escaping, encoded", "a%2fesc%2foutside%2fsecret.txt"],
  ["dangling symlink pointing outside", "dangling-out"],
];

describe("file-share path confinement", () => {
  for (const [label, path] of TRAVERSALS) {
    const uri = `/fileShares/s/${path}`;
    it(`refuses ${label}: ${JSON.stringify(path)}`, async () => {
      await assert.rejects(registry.resolve(uri), (err: unknown) => {
        assert.ok(err instanceof PathEscapeError, `expected PathEscapeError, got ${String(err)}`);
        assert.ok(err.message.includes(JSON.stringify(uri)), err.message);
        assert.match(err.message, /refused: \w/);
        return true;
      });
    });
  }

  it("refuses the same forms on a directory-backed cloud store", async () => {
    for (const [, path] of TRAVERSALS.filter(([, p]) => !/link|esc|dangling/.test(p))) {
      await assert.rejects(registry.resolve(`/cloudStores/c/${path}`), PathEscapeError, path);
    }
  });

  it("refuses the lexical forms on an HTTP cloud store", async () => {
    for (const [, path] of TRAVERSALS.filter(([, p]) => !/link|esc|dangling/.test(p))) {
      await assert.rejects(registry.resolve(`/cloudStores/era5/${path}`), PathEscapeError, path);
    }
  });

  it("refuses a symlink loop and malformed percent-encoding as bad input", async () => {
    await assert.rejects(registry.resolve("/fileShares/s/loop1"), InvalidInputError);
    await assert.rejects(registry.resolve("/fileShares/s/a%zz"), InvalidInputError);
    await assert.rejects(registry.resolve("/fileShares/s/%"), InvalidInputError);
    await assert.rejects(registry.resolve("/fileShares/s/%c0%ae%c0%ae/x"), InvalidInputError); // overlong UTF-8 dots
  });

  const FOUND: Array<[path: string, expected: string]> = [
    ["a/b/c.nc", "a/b/c.nc"],
    ["./a/b/c.nc", "a/b/c.nc"],
    ["a//b/./c.nc", "a/b/c.nc"],
    ["a/b/", "a/b"],
    ["a%2fb%2fc.nc", "a/b/c.nc"], // one encoded slash is just a slash
    ["link-in/c.nc", "a/b/c.nc"], // symlink that stays inside
    ["a/up/a/b/c.nc", "a/b/c.nc"], // symlink to the root itself
    ["...", "..."], // a legitimate name
    ["..foo", "..foo"],
    ["%2e%2e%2e", "..."],
    ["t2m%20daily.nc", "t2m daily.nc"],
    ["100%25.nc", "100%.nc"],
    ["%2541.nc", "%41.nc"], // a second escape that decodes to a harmless letter is a name
    ["", ""],
    [".", ""],
  ];
  for (const [path, expected] of FOUND) {
    it(`resolves ${JSON.stringify(path)}`, async () => {
      const got = await registry.resolve(`/fileShares/s/${path}`);
      assert.deepEqual(got, {
        kind: "file",
        path: expected ? join(share, expected) : share,
      });
    });
  }

  it("resolves the share root without a trailing slash", async () => {
    assert.deepEqual(await registry.resolve("/fileShares/s"), {
      kind: "file",
      path: share,
    });
  });

  const MISSING = [
    "a/missing.nc",
    "missing/deeper/x.nc",
    "\u2025/x", // two-dot leader: just a name
    "\u2025",
    "\uff0e\uff0e/x", // fullwidth full stops
    "%E2%80%A5/x",
    "a/b/c.nc/x", // through a file
    "dangling-in",
  ];
  for (const path of MISSING) {
    it(`reports ${JSON.stringify(path)} as not found`, async () => {
      await assert.rejects(registry.resolve(`/fileShares/s/${path}`), NotFoundError);
    });
  }

  it("refuses unknown store names, naming the known ones", async () => {
    await assert.rejects(registry.resolve("/fileShares/nope/a/b/c.nc"), (err: unknown) => {
      assert.ok(err instanceof NotFoundError);
      assert.match(err.message, /"nope".*"s"/);
      return true;
    });
    await assert.rejects(registry.resolve("/fileShares/c/x.zarr"), NotFoundError); // c is a cloud store
    await assert.rejects(registry.resolve("/cloudStores/s/a/b/c.nc"), /"c", "era5"/);
    await assert.rejects(registry.resolve("/fileShares//a/b/c.nc"), NotFoundError);
    await assert.rejects(registry.resolve("/fileShares/S/a/b/c.nc"), NotFoundError);
    await assert.rejects(registry.resolve("/fileShares/..%2fs/a"), NotFoundError);
  });

  it("refuses wrong prefixes", async () => {
    const wrong = [
      "",
      "/",
      "fileShares/s/a/b/c.nc",
      "/fileshares/s/a/b/c.nc",
      "/FileShares/s/a/b/c.nc",
      "/fileShares",
      "/fileSharesX/s/a",
      "/etc/passwd",
      "//fileShares/s/a",
      "/rasters/x",
      "https://host.example/bucket/prefix/x",
    ];
    for (const uri of wrong) {
      await assert.rejects(registry.resolve(uri), (err: unknown) => {
        assert.ok(err instanceof InvalidInputError && !(err instanceof PathEscapeError), String(err));
        assert.match(err.message, /\/fileShares\/<share>\/<path>/);
        return true;
      });
    }
  });
});

describe("cloud stores", () => {
  it("resolves directory-backed stores like file shares", async () => {
    assert.deepEqual(await registry.resolve("/cloudStores/c/x.zarr"), {
      kind: "file",
      path: join(tmp, "cloud", "x.zarr"),
    });
  });

  it("joins HTTP bases with URL semantics, encoding each segment", async () => {
    const cases: Array<[string, string]> = [
      ["t2m.zarr", "https://host.example/bucket/prefix/t2m.zarr"],
      ["./a/b.zarr/", "https://host.example/bucket/prefix/a/b.zarr"],
      ["t2m%20daily.zarr", "https://host.example/bucket/prefix/t2m%20daily.zarr"],
      ["what%3F%23.zarr", "https://host.example/bucket/prefix/what%3F%23.zarr"],
      ["...", "https://host.example/bucket/prefix/..."],
      ["", "https://host.example/bucket/prefix/"],
    ];
    for (const [path, url] of cases) {
      assert.deepEqual(await registry.resolve(`/cloudStores/era5/${path}`), { kind: "http", url }, path);
    }
  });

  it("checks the joined URL keeps the base's origin and path prefix", () => {
    const base = new URL("https://host.example/bucket/prefix/");
    assert.throws(() => joinUrlInside(base, [".."], "u"), PathEscapeError);
    // a "%" in a segment is data, so it cannot become a WHATWG "%2e%2e" dot segment
    assert.equal(joinUrlInside(base, ["%2e%2e"], "u"), "https://host.example/bucket/prefix/%252e%252e");
    assert.equal(joinUrlInside(base, ["//evil.example"], "u"), "https://host.example/bucket/prefix/%2F%2Fevil.example");
    assert.equal(joinUrlInside(base, ["https:"], "u"), "https://host.example/bucket/prefix/https%3A");
  });
});

describe("isInside", () => {
  it("compares whole segments", () => {
    assert.equal(isInside("/srv/share", "/srv/share"), true);
    assert.equal(isInside("/srv/share", "/srv/share/..foo"), true);
    assert.equal(isInside("/srv/share", "/srv/share-other/x"), false);
    assert.equal(isInside("/srv/share", "/srv"), false);
  });
});

describe("createDataStoreRegistry", () => {
  it("lists stores with real roots and normalised base URLs", () => {
    assert.deepEqual(registry.list(), [
      { kind: "fileShare", name: "s", uri: "/fileShares/s", path: share },
      {
        kind: "cloudStore",
        name: "c",
        uri: "/cloudStores/c",
        path: join(tmp, "cloud"),
      },
      {
        kind: "cloudStore",
        name: "era5",
        uri: "/cloudStores/era5",
        url: "https://host.example/bucket/prefix/",
      },
    ]);
  });

  it("refuses bad registrations", () => {
    const dir = join(tmp, "cloud");
    const file = join(tmp, "outside", "secret.txt");
    assert.throws(() => createDataStoreRegistry([{ kind: "fileShare", name: "x", path: join(tmp, "nope") }]), NotFoundError);
    assert.throws(() => createDataStoreRegistry([{ kind: "fileShare", name: "x", path: file }]), InvalidInputError);
    assert.throws(
      () =>
        createDataStoreRegistry([
          { kind: "fileShare", name: "x", path: dir },
          { kind: "fileShare", name: "x", path: dir },
        ]),
      /twice/,
    );
    assert.throws(() => createDataStoreRegistry([{ kind: "fileShare", name: "..", path: dir }]), InvalidInputError);
    assert.throws(() => createDataStoreRegistry([{ kind: "fileShare", name: "a/b", path: dir }]), InvalidInputError);
    assert.throws(() => createDataStoreRegistry([{ kind: "fileShare", name: "x", url: "https://h/" }]), InvalidInputError);
    assert.throws(() => createDataStoreRegistry([{ kind: "cloudStore", name: "x" }]), InvalidInputError);
    assert.throws(() => createDataStoreRegistry([{ kind: "cloudStore", name: "x", path: dir, url: "https://h/" }]), InvalidInputError);
    for (const url of ["ftp://h/x", "https://u:p@h/x", "https://h/x?sig=1", "https://h/x#f", "not a url"]) {
      assert.throws(() => createDataStoreRegistry([{ kind: "cloudStore", name: "x", url }]), InvalidInputError, url);
    }
    // the same name may be used by one file share and one cloud store
    createDataStoreRegistry([
      { kind: "fileShare", name: "x", path: dir },
      { kind: "cloudStore", name: "x", path: dir },
    ]);
  });
});

describe("parseDataStoreSpec", () => {
  it("parses file shares and cloud stores", () => {
    assert.deepEqual(parseDataStoreSpec("fileShare:climate=/srv/climate"), {
      kind: "fileShare",
      name: "climate",
      path: "/srv/climate",
    });
    assert.deepEqual(parseDataStoreSpec("cloudStore:era5=https://host/bucket/prefix"), {
      kind: "cloudStore",
      name: "era5",
      url: "https://host/bucket/prefix",
    });
    assert.deepEqual(parseDataStoreSpec("cloudStore:local=./data/cloud"), {
      kind: "cloudStore",
      name: "local",
      path: "./data/cloud",
    });
    assert.deepEqual(parseDataStoreSpec(" fileShare:d=C:\\data=x "), {
      kind: "fileShare",
      name: "d",
      path: "C:\\data=x",
    });
  });

  it("refuses bad specs, saying the expected form", () => {
    const bad = [
      "",
      "climate=/srv/climate",
      "fileShare=/srv/climate",
      "fileShare:climate",
      "fileShare:=/srv",
      "fileShare:climate=",
      "share:climate=/srv",
      "fileShare:..=/srv",
      "fileShare:a/b=/srv",
      "fileShare:climate=https://host/x",
      "cloudStore:era5=ftp://bucket/x",
    ];
    for (const text of bad) {
      assert.throws(
        () => parseDataStoreSpec(text),
        (err: unknown) => err instanceof InvalidInputError && /fileShare:<name>=<directory>/.test(err.message),
        text,
      );
    }
  });
});
