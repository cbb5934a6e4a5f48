'use strict';
// The pure decisions: when to refresh, and what an answer of /v1/token/refresh means.

const test = require('node:test');
const assert = require('node:assert/strict');
const { planRefresh, classifyRefreshAnswer, MAX_TIMER_MS } = require('../veil-sdk.js');

const T = 1_740_830_400_000;
const identity = { refresh_from: T + 3600e3, identity_expires: T + 72 * 3600e3, refresh_expires: T + 30 * 86400e3 };

test('planRefresh waits until refresh_from', () => {
  assert.deepEqual(planRefresh(identity, T, 0), { action: 'wait', delay: 3600e3 });
  assert.deepEqual(planRefresh(identity, identity.refresh_from - 1, 0), { action: 'wait', delay: 1 });
});

test('planRefresh refreshes from refresh_from until refresh_expires', () => {
  assert.deepEqual(planRefresh(identity, identity.refresh_from, 0), { action: 'refresh' });
  assert.deepEqual(planRefresh(identity, identity.identity_expires + 1, 0), { action: 'refresh' });
  assert.deepEqual(planRefresh(identity, identity.refresh_expires - 1, 0), { action: 'refresh' });
});

test('planRefresh refreshes when the advertising token expires, if before refresh_from (an altered pair)', () => {
  const odd = { ...identity, identity_expires: T + 600e3 };
  assert.deepEqual(planRefresh(odd, T, 0), { action: 'wait', delay: 600e3 });
  assert.deepEqual(planRefresh(odd, T + 600e3, 0), { action: 'refresh' });
});

test('planRefresh expires at refresh_expires', () => {
  assert.deepEqual(planRefresh(identity, identity.refresh_expires, 0), { action: 'expire' });
  assert.deepEqual(planRefresh(identity, identity.refresh_expires + 1, T + 99e9), { action: 'expire' });
});

test('planRefresh after a failure waits for the retry time', () => {
  const now = identity.refresh_from + 10;
  assert.deepEqual(planRefresh(identity, now, now + 5000), { action: 'wait', delay: 5000 });
  assert.deepEqual(planRefresh(identity, now + 5000, now + 5000), { action: 'refresh' });
});

test('planRefresh never waits past refresh_expires, so expiry is reported on time', () => {
  const now = identity.refresh_expires - 2000;
  assert.deepEqual(planRefresh(identity, now, now + 5000), { action: 'wait', delay: 2000 });
});

test('planRefresh cuts waits longer than setTimeout can take (30-day tokens)', () => {
  const far = { refresh_from: T + 40 * 86400e3, identity_expires: T + 41 * 86400e3, refresh_expires: T + 50 * 86400e3 };
  assert.deepEqual(planRefresh(far, T, 0), { action: 'wait', delay: MAX_TIMER_MS });
});

const tokens = {
  advertising_token: 'A4', refresh_token: 'c+/=', identity_expires: 3, refresh_from: 1, refresh_expires: 4,
};

test('classifyRefreshAnswer: success with tokens is a new identity', () => {
  const result = classifyRefreshAnswer(200, JSON.stringify({ status: 'success', body: tokens }));
  assert.equal(result.kind, 'refreshed');
  assert.deepEqual({ ...result.identity }, tokens);
});

test('classifyRefreshAnswer: optout, also in the older form of empty token values', () => {
  assert.equal(classifyRefreshAnswer(200, '{"status":"optout"}').kind, 'optout');
  const empty = { status: 'success', body: { ...tokens, advertising_token: '', refresh_token: '' } };
  assert.equal(classifyRefreshAnswer(200, JSON.stringify(empty)).kind, 'optout');
});

test('classifyRefreshAnswer: the server refusing the token ends it', () => {
  for (const status of ['error', 'invalid_token', 'expired_token']) {
    assert.equal(classifyRefreshAnswer(400, JSON.stringify({ status, message: 'x' })).kind, 'refused', status);
  }
});

test('classifyRefreshAnswer: anything else is a failure to retry, never an end', () => {
  const cases = [
    [500, '{"status":"unknown","message":"Internal server error"}'],
    [503, '{"status":"unknown","message":"Not ready"}'],
    [429, '{"status":"clienterror","message":"Rate limit exceeded"}'],
    [400, '{"status":"clienterror","message":"Required Parameter Missing: refresh_token"}'],
    [502, '<html>Bad gateway</html>'],
    [200, '<html>captive portal</html>'],
    [200, '{"status":"success","body":{"advertising_token":"x"}}'],
    [200, 'null'],
    [404, ''],
  ];
  for (const [status, text] of cases) {
    assert.equal(classifyRefreshAnswer(status, text).kind, 'failed', status + ' ' + text);
  }
});

test('classifyRefreshAnswer: a failure that is no passing trouble of the server is unexpected', () => {
  assert.equal(classifyRefreshAnswer(404, '{"status":"unknown_path"}').unexpected, true);
  assert.equal(classifyRefreshAnswer(200, '<!doctype html><title>My site</title>').unexpected, true);
  assert.equal(classifyRefreshAnswer(405, '').unexpected, true);
  assert.equal(classifyRefreshAnswer(503, '{"status":"unknown"}').unexpected, false);
  assert.equal(classifyRefreshAnswer(502, '<html>Bad gateway</html>').unexpected, false);
  assert.equal(classifyRefreshAnswer(429, '{"status":"clienterror"}').unexpected, false);
});
