/** The access matrix: owner, admin, another user, anonymous × private, org, public. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AuthError } from "../../src/portal/errors.js";
import { accessDenied, canManage, canRead, canRunAnalysis, canWrite, type Access, type Viewer } from "../../src/portal/access.js";

const VIEWERS: Record<string, Viewer> = {
  owner: { username: "Alice", role: "user" },
  ownerOtherCase: { username: "alice", role: "user" },
  admin: { username: "root", role: "admin" },
  other: { username: "bob", role: "publisher" },
  anonymous: undefined,
};

/** Expected [read, write] for each viewer and sharing level. */
const MATRIX: Record<string, Record<Access, [boolean, boolean]>> = {
  owner: { private: [true, true], org: [true, true], public: [true, true] },
  ownerOtherCase: { private: [true, true], org: [true, true], public: [true, true] },
  admin: { private: [true, true], org: [true, true], public: [true, true] },
  other: { private: [false, false], org: [true, false], public: [true, false] },
  anonymous: { private: [false, false], org: [false, false], public: [true, false] },
};

describe("access rules", () => {
  for (const [who, row] of Object.entries(MATRIX))
    for (const [access, [read, write]] of Object.entries(row) as [Access, [boolean, boolean]][])
      it(`${who} × ${access}: read ${read}, write ${write}`, () => {
        const item = { owner: "Alice", access };
        assert.equal(canRead(VIEWERS[who], item), read);
        assert.equal(canWrite(VIEWERS[who], item), write);
      });

  it("lets publishers and admins run analysis, not users or anonymous", () => {
    assert.deepEqual([VIEWERS.admin, VIEWERS.other, VIEWERS.owner, undefined].map(canRunAnalysis), [true, true, false, false]);
  });

  it("lets only the owner or an admin manage a job", () => {
    assert.ok(canManage(VIEWERS.owner, "ALICE"));
    assert.ok(canManage(VIEWERS.admin, "alice"));
    assert.ok(!canManage(VIEWERS.other, "alice"));
    assert.ok(!canManage(undefined, "alice"));
  });

  it("refuses anonymous with 499 and signed-in users with 403", () => {
    const anonymous = accessDenied(undefined);
    const signedIn = accessDenied(VIEWERS.other);
    assert.ok(anonymous instanceof AuthError && signedIn instanceof AuthError);
    assert.equal(anonymous.code, 499);
    assert.equal(signedIn.code, 403);
  });
});
