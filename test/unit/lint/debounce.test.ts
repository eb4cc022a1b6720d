/** The typing debounce scales with what a validation of the document costs (src/server/validator.ts). */
import assert from 'node:assert/strict';
import test from 'node:test';
import { CHEAP_MS, debounceFor, delayFor, MAX_DEBOUNCE_MS } from '../../../src/server/validator';

test('no delay for cheap documents, twice the cost above, capped; unknown cost waits the most', () => {
  assert.equal(debounceFor(undefined), MAX_DEBOUNCE_MS);
  assert.equal(debounceFor(0.4), 0);
  assert.equal(debounceFor(CHEAP_MS - 0.1), 0);
  assert.equal(debounceFor(40), 80);
  assert.equal(debounceFor(99.2), 199);
  assert.equal(debounceFor(5000), MAX_DEBOUNCE_MS);
});

test('a lone change after a pause is validated at once; changes in a burst wait for the debounce', () => {
  assert.equal(delayFor(150, undefined), 0);
  assert.equal(delayFor(150, 5000), 0);
  assert.equal(delayFor(150, MAX_DEBOUNCE_MS), 0);
  assert.equal(delayFor(150, 50), MAX_DEBOUNCE_MS);
  assert.equal(delayFor(40, 79), 80);
  assert.equal(delayFor(5, 1), 0);
});
