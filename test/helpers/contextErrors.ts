/** The check the context tests share: a bad `context` is a 400 naming the parameter `context`. */
import assert from "node:assert/strict";
import { InvalidInputError } from "../../src/cube/errors.js";

/** `fn` throws an InvalidInputError for the parameter `context` whose message matches `pattern`. */
export function rejectsContext(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InvalidInputError, `an InvalidInputError, got ${String(e)}`);
    assert.equal(e.parameter, "context");
    assert.match(e.message, pattern);
    return true;
  });
}
