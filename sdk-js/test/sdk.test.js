'use strict';
// The SDK's behaviour over time, driven by a fake clock: refresh timing, retries, opt-out, expiry,
// tabs, storage modes and the public API. No real time passes.

const test = require('node:test');
const assert = require('node:assert/strict');
const { FakeBrowser, identityAt, success, OPTOUT } = require('./fake-browser.js');

const SECOND = 1000;
const HOUR = 3600 * SECOND;

function loggedIn(options = {}) {
  const browser = new FakeBrowser();
  const tab = browser.openTab(options.origin);
  const identity = identityAt(browser.clock.now(), options.lifetimes);
  tab.veil.init({ identity, ...options.init });
  return { browser, tab, identity, clock: browser.clock, network: browser.network };
}

// Leaves the requests sent through `network` unanswered until the returned function answers the last one.
function holdAnswers(network) {
  let resolveLast;
  network.respond = () => new Promise((resolve) => {
    resolveLast = resolve;
  });
  return (value) => resolveLast(value);
}

test('before init: no token, login state unknown', () => {
  const tab = new FakeBrowser().openTab();
  assert.equal(tab.veil.getAdvertisingToken(), undefined);
  assert.equal(tab.veil.isLoginRequired(), undefined);
  assert.deepEqual(tab.typesSince(0), ['SdkLoaded']);
});

test('init keeps the identity, stores it and reports InitCompleted', () => {
  const { tab, identity } = loggedIn();
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
  assert.equal(tab.veil.isLoginRequired(), false);
  assert.deepEqual(JSON.parse(tab.stored()), identity);
  const last = tab.events.at(-1);
  assert.equal(last.type, 'InitCompleted');
  assert.equal(last.payload.status, 'established');
  assert.equal(last.payload.advertisingToken, identity.advertising_token);
});

test('init without an identity and nothing stored: login required', () => {
  const tab = new FakeBrowser().openTab();
  tab.veil.init({});
  assert.equal(tab.veil.isLoginRequired(), true);
  assert.equal(tab.events.at(-1).payload.status, 'no_identity');
});

test('init rejects what is not a generate body, and bad options', () => {
  const tab = new FakeBrowser().openTab();
  assert.throws(() => tab.veil.init({ identity: { advertising_token: 'x' } }), TypeError);
  assert.throws(() => tab.veil.init({ storage: 'sessionStorage' }), TypeError);
  assert.throws(() => tab.veil.init({ refreshRetryPeriod: 10 }), TypeError);
  assert.throws(() => tab.veil.init({ baseUrl: 'veil.example' }), TypeError);
  assert.throws(() => tab.veil.init({ storage: 'cookie', cookieDomain: 'a.b; secure' }), TypeError);
  assert.throws(() => tab.veil.init(), TypeError);
});

test('init with the whole generate response, or an opt-out, says what to pass instead', () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab();
  const body = identityAt(browser.clock.now());
  assert.throws(() => tab.veil.init({ identity: { status: 'success', body } }), /the `body` of the generate response/);
  assert.throws(() => tab.veil.init({ identity: { status: 'optout' } }), /opted out, do not call init/);
  assert.equal(tab.veil.isLoginRequired(), undefined, 'a refused init changes nothing');
});

test('init names what is wrong with an identity: a JSON string, a missing token, a time as text', () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab();
  const body = identityAt(browser.clock.now());
  assert.throws(() => tab.veil.init({ identity: JSON.stringify(body) }), /not a string \(JSON\.parse/);
  assert.throws(() => tab.veil.init({ identity: { ...body, refresh_token: undefined } }),
    /identity\.refresh_token must be a non-empty string/);
  assert.throws(() => tab.veil.init({ identity: { ...body, refresh_from: String(body.refresh_from) } }),
    /identity\.refresh_from must be a number \(epoch milliseconds\)/);
  assert.throws(() => tab.veil.init({ identity: 42 }), /body of a generate response/);
});

test('cookiePath must be a path', () => {
  const tab = new FakeBrowser().openTab();
  assert.throws(() => tab.veil.init({ storage: 'cookie', cookiePath: 'news' }), /cookiePath must start with '\/'/);
  tab.veil.init({ storage: 'cookie', cookiePath: '/news' });
});

test('baseUrl: an absolute http(s) URL, any case, without query, fragment, credentials or spaces', () => {
  const tab = new FakeBrowser().openTab();
  for (const bad of ['https://veil.example?x=1', 'https://veil.example/#x', 'https://veil.example?',
    'http:// veil.example', 'https://veil.example/a b', 'https://user:pw@veil.example', 'ftp://veil.example',
    '/veil', '']) {
    assert.throws(() => tab.veil.init({ baseUrl: bad }), TypeError, bad);
  }
  const base = (baseUrl) => {
    const browser = new FakeBrowser();
    const t = browser.openTab();
    t.veil.init({ identity: identityAt(browser.clock.now(), { refreshFrom: -1 }), baseUrl });
    return browser.network.calls[0].url;
  };
  assert.equal(base('HTTP://Veil.Example:8080'), 'http://veil.example:8080/v1/token/refresh');
  assert.equal(base('https://veil.example/api/'), 'https://veil.example/api/v1/token/refresh');
});

test('no refresh before refresh_from; one refresh at refresh_from, as a simple CORS request', async () => {
  const { tab, identity, clock, network } = loggedIn({ init: { baseUrl: 'https://veil.example/' } });
  const next = identityAt(identity.refresh_from);
  network.respond = () => success(next);
  await clock.advance(HOUR - 1);
  assert.equal(network.calls.length, 0);
  await clock.advance(1);
  assert.equal(network.calls.length, 1);
  const call = network.calls[0];
  assert.equal(call.url, 'https://veil.example/v1/token/refresh');
  assert.equal(call.at, identity.refresh_from);
  assert.equal(call.request.method, 'POST');
  assert.equal(typeof call.request.body, 'string'); // sent as text/plain: no preflight
  assert.equal(call.request.headers, undefined); // no custom header either
  assert.equal(call.request.credentials, 'omit');
  assert.deepEqual(call.body, { refresh_token: identity.refresh_token });
  assert.equal(tab.veil.getAdvertisingToken(), next.advertising_token);
  assert.deepEqual(JSON.parse(tab.stored()), next);
  const last = tab.events.at(-1);
  assert.equal(last.type, 'IdentityUpdated');
  assert.equal(last.payload.status, 'refreshed');
});

test('the chain goes on: each new identity is refreshed at its own refresh_from', async () => {
  const { clock, network } = loggedIn();
  network.respond = () => success(identityAt(clock.now()));
  await clock.advance(3 * HOUR + 1);
  assert.deepEqual(network.calls.map((c) => c.at - network.calls[0].at), [0, HOUR, 2 * HOUR]);
});

test('short lifetimes: each refresh comes at its refresh_from, not held back by the retry period', async () => {
  const lifetimes = { refreshFrom: 2 * SECOND, identity: 60 * SECOND, refresh: 120 * SECOND };
  const { clock, network } = loggedIn({ lifetimes });
  network.respond = () => success(identityAt(clock.now(), lifetimes));
  await clock.advance(6 * SECOND);
  assert.deepEqual(network.calls.map((c) => c.at - network.calls[0].at), [0, 2000, 4000]);
});

test('a network outage keeps the identity and retries every refreshRetryPeriod', async () => {
  const { tab, identity, clock, network } = loggedIn({ init: { refreshRetryPeriod: 2000 } });
  network.respond = () => {
    throw new TypeError('Failed to fetch');
  };
  await clock.advance(HOUR + 7 * SECOND);
  assert.deepEqual(network.calls.map((c) => c.at - identity.refresh_from), [0, 2000, 4000, 6000]);
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
  assert.equal(tab.veil.isLoginRequired(), false);
  assert.deepEqual(JSON.parse(tab.stored()), identity);
  assert.deepEqual(tab.typesSince(0), ['SdkLoaded', 'InitCompleted']);

  const next = identityAt(clock.now());
  network.respond = () => success(next);
  await clock.advance(2000);
  assert.equal(tab.veil.getAdvertisingToken(), next.advertising_token);
});

test('server errors, rate limits and odd answers are retried, not taken as an end', async () => {
  const { tab, identity, clock, network } = loggedIn();
  const answers = [
    { status: 503, body: { status: 'unknown', message: 'Not ready' } },
    { status: 500, body: 'oops' },
    { status: 429, body: { status: 'clienterror', message: 'Rate limit exceeded' } },
  ];
  network.respond = () => answers.shift();
  await clock.advance(HOUR + 10 * SECOND + 1);
  assert.deepEqual(network.calls.map((c) => c.at - identity.refresh_from), [0, 5000, 10000]);
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
});

test('retries stop at refresh_expires: the identity expires, storage is cleared, Expired is reported', async () => {
  const lifetimes = { refreshFrom: 10 * SECOND, identity: 20 * SECOND, refresh: 30 * SECOND };
  const { tab, identity, clock, network } = loggedIn({ lifetimes });
  await clock.advance(20 * SECOND);
  assert.equal(tab.veil.getAdvertisingToken(), undefined, 'advertising token expired');
  assert.equal(tab.veil.isLoginRequired(), false, 'still refreshable');
  await clock.advance(10 * SECOND - 1);
  assert.notEqual(tab.stored(), null);
  await clock.advance(1);
  assert.equal(tab.veil.isLoginRequired(), true);
  assert.equal(tab.stored(), null);
  const last = tab.events.at(-1);
  assert.equal(last.type, 'Expired');
  assert.equal(last.at, identity.refresh_expires);
  assert.equal(last.payload.identity, null);
  assert.equal(network.calls.at(-1).at < identity.refresh_expires, true);
  assert.equal(clock.pendingTimeouts(), 0);
});

test('a refresh that never gets an answer times out and is retried, until Expired at refresh_expires', async () => {
  const lifetimes = { refreshFrom: 10 * SECOND, identity: 40 * SECOND, refresh: 60 * SECOND };
  const { tab, identity, clock, network } = loggedIn({ lifetimes, init: { refreshRetryPeriod: 2000 } });
  network.respond = () => new Promise(() => {}); // a server or proxy that hangs
  await clock.advance(30 * SECOND);
  // Timeout: 4 retry periods (8 s), then the retry period (2 s).
  assert.deepEqual(network.calls.map((c) => c.at - identity.refresh_from), [0, 10000, 20000]);
  assert.equal(network.calls[0].request.signal.aborted, true);
  assert.equal(tab.veil.isLoginRequired(), false);
  await clock.advance(30 * SECOND);
  assert.equal(tab.veil.isLoginRequired(), true);
  assert.equal(tab.events.at(-1).type, 'Expired');
  assert.equal(tab.events.at(-1).at, identity.refresh_expires);
  assert.equal(clock.pendingTimeouts(), 0);
});

test('the refresh timeout is at most 30 s, also with a long retry period', async () => {
  const { identity, clock, network } = loggedIn({ init: { refreshRetryPeriod: 60 * SECOND } });
  network.respond = () => new Promise(() => {});
  await clock.advance(HOUR + 90 * SECOND);
  assert.deepEqual(network.calls.map((c) => c.at - identity.refresh_from), [0, 90000]);
});

test('optout ends the identity: cleared, OptedOut reported, no more refreshes', async () => {
  const { tab, clock, network } = loggedIn();
  network.respond = () => OPTOUT;
  await clock.advance(HOUR);
  assert.equal(tab.veil.getAdvertisingToken(), undefined);
  assert.equal(tab.veil.isLoginRequired(), true);
  assert.equal(tab.stored(), null);
  assert.equal(tab.events.at(-1).type, 'OptedOut');
  assert.equal(tab.events.at(-1).payload.status, 'optout');
  await clock.advance(10 * HOUR);
  assert.equal(network.calls.length, 1);
});

test('a refused refresh token (400 error) ends the identity as Expired', async () => {
  const { tab, clock, network } = loggedIn();
  network.respond = () => ({ status: 400, body: { status: 'error', message: 'Error refreshing token' } });
  await clock.advance(HOUR);
  assert.equal(tab.veil.isLoginRequired(), true);
  assert.equal(tab.events.at(-1).type, 'Expired');
  assert.equal(tab.events.at(-1).payload.status, 'refused');
});

test('reload: a new page restores the stored identity without a login', () => {
  const { browser, identity } = loggedIn();
  const reloaded = browser.openTab();
  reloaded.veil.init({});
  assert.equal(reloaded.veil.getAdvertisingToken(), identity.advertising_token);
  assert.equal(reloaded.events.at(-1).payload.status, 'established');
});

test('reload with an expired stored identity: Expired, then login required', async () => {
  const { browser, tab, clock } = loggedIn({ lifetimes: { refreshFrom: HOUR, identity: HOUR, refresh: HOUR } });
  tab.veil.abort();
  await clock.advance(2 * HOUR);
  const reloaded = browser.openTab();
  reloaded.veil.init({});
  assert.equal(reloaded.veil.isLoginRequired(), true);
  assert.equal(reloaded.stored(), null);
});

test('init with a given identity past refresh_expires: InitCompleted first, then Expired', () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab();
  const now = browser.clock.now();
  const seen = [];
  const old = { ...identityAt(now - 40 * 24 * HOUR), refresh_expires: now - 1 };
  tab.veil.init({ identity: old, callback: (type, p) => seen.push(type + ':' + p.status) });
  assert.deepEqual(seen, ['InitCompleted:no_identity', 'Expired:expired']);
  assert.deepEqual(tab.typesSince(1), ['InitCompleted', 'Expired']);
  assert.equal(tab.veil.isLoginRequired(), true);
  assert.equal(tab.stored(), null);
});

test('init keeps a newer stored refresh over the older identity the server cached at login', async () => {
  const { browser, identity, clock, network } = loggedIn();
  const refreshed = identityAt(clock.now() + HOUR);
  network.respond = () => success(refreshed);
  await clock.advance(HOUR);
  const page = browser.openTab();
  page.veil.init({ identity });
  assert.equal(page.veil.getAdvertisingToken(), refreshed.advertising_token);
  const newLogin = identityAt(clock.now());
  page.veil.init({ identity: newLogin });
  assert.equal(page.veil.getAdvertisingToken(), newLogin.advertising_token);
});

test('two tabs: a refresh made in one tab is adopted by the other, which does not refresh itself', async () => {
  const { browser, tab: first, identity, clock, network } = loggedIn();
  const second = browser.openTab();
  second.veil.init({});
  const next = identityAt(identity.refresh_from);
  network.respond = () => success(next);
  await clock.advance(HOUR);
  assert.equal(network.calls.length, 1, 'one refresh for both tabs');
  assert.equal(first.veil.getAdvertisingToken(), next.advertising_token);
  assert.equal(second.veil.getAdvertisingToken(), next.advertising_token);
  const adopted = [first, second].flatMap((t) => t.events).filter((e) => e.payload.status === 'adopted');
  assert.equal(adopted.length, 1);
  await clock.advance(HOUR - 1);
  assert.equal(network.calls.length, 1, 'both tabs now wait for the new refresh_from');
});

test('tabs on one identity spread their refreshes with jitter: one request, not one per tab', async () => {
  const browser = new FakeBrowser();
  const draws = [0.1, 0.5, 0.9];
  const tabs = draws.map((d) => browser.openTab('https://pub.example', { random: () => d }));
  const identity = identityAt(browser.clock.now());
  tabs[0].veil.init({ identity });
  tabs.slice(1).forEach((t) => t.veil.init({}));
  const next = identityAt(identity.refresh_from);
  browser.network.respond = () => new Promise((resolve) => {
    browser.clock.setTimeout(() => resolve(success(next)), 300); // a round trip of 300 ms
  });
  await browser.clock.advance(HOUR + 3 * SECOND);
  assert.deepEqual(browser.network.calls.map((c) => c.at - identity.refresh_from), [200]);
  for (const tab of tabs) {
    assert.equal(tab.veil.getAdvertisingToken(), next.advertising_token);
  }
});

test('two tabs with a clock ahead of the server do not refresh in a loop by adopting each other', async () => {
  const { browser, tab: first, clock, network } = loggedIn();
  const second = browser.openTab();
  second.veil.init({});
  // Every identity the server issues looks due at once to this computer. (The guard stops an
  // endless loop, which would never yield to the test.)
  network.respond = () => {
    if (network.calls.length > 50) {
      throw new TypeError('Failed to fetch');
    }
    return success(identityAt(clock.now() - 2 * HOUR));
  };
  await clock.advance(HOUR + 20 * SECOND);
  assert.ok(network.calls.length <= 10, network.calls.length + ' refreshes in 20 s by two tabs');
  const gaps = network.calls.slice(1).map((c, i) => c.at - network.calls[i].at);
  assert.ok(gaps.every((gap) => gap >= 5 * SECOND), 'at most one refresh per retry period: ' + gaps);
  assert.equal(first.veil.isLoginRequired(), false);
  assert.equal(second.veil.getAdvertisingToken(), first.veil.getAdvertisingToken());
});

test('two tabs: a logout in one tab logs the other out', () => {
  const { browser, tab: first } = loggedIn();
  const second = browser.openTab();
  second.veil.init({});
  first.veil.disconnect();
  assert.equal(second.veil.getAdvertisingToken(), undefined);
  assert.equal(second.veil.isLoginRequired(), true);
  assert.equal(second.events.at(-1).type, 'LoggedOut');
});

test('two tabs: an opt-out seen by one tab is reported as OptedOut in the other', async () => {
  const { browser, tab: first, clock, network } = loggedIn();
  const second = browser.openTab();
  second.veil.init({});
  network.respond = () => OPTOUT;
  await clock.advance(HOUR);
  assert.equal(first.events.at(-1).type, 'OptedOut');
  assert.equal(second.events.at(-1).type, 'OptedOut');
  assert.equal(second.stored(), null);
});

test('two tabs: a login in one tab is adopted by a tab that was logged out', () => {
  const browser = new FakeBrowser();
  const first = browser.openTab();
  const second = browser.openTab();
  first.veil.init({});
  second.veil.init({});
  const identity = identityAt(browser.clock.now());
  first.veil.init({ identity });
  assert.equal(second.veil.getAdvertisingToken(), identity.advertising_token);
  assert.equal(second.events.at(-1).payload.status, 'adopted');
});

test('disconnect clears memory and storage and reports LoggedOut; no refresh follows', async () => {
  const { tab, clock, network } = loggedIn();
  tab.veil.disconnect();
  assert.equal(tab.veil.getAdvertisingToken(), undefined);
  assert.equal(tab.veil.isLoginRequired(), true);
  assert.equal(tab.stored(), null);
  assert.equal(tab.events.at(-1).type, 'LoggedOut');
  await clock.advance(2 * HOUR);
  assert.equal(network.calls.length, 0);
});

test('abort stops timers and ignores the answer of a refresh in flight', async () => {
  const { tab, identity, clock, network } = loggedIn();
  const answer = holdAnswers(network);
  await clock.advance(HOUR);
  assert.equal(network.calls.length, 1);
  tab.veil.abort();
  answer(success(identityAt(clock.now())));
  await clock.advance(10 * HOUR);
  assert.equal(network.calls.length, 1);
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
  assert.equal(network.calls[0].request.signal.aborted, true);
});

test('init again with the same identity and settings keeps the refresh in flight', async () => {
  const { tab, identity, clock, network } = loggedIn();
  const answer = holdAnswers(network);
  await clock.advance(HOUR);
  assert.equal(network.calls.length, 1);
  const before = tab.events.length;
  tab.veil.init({});
  tab.veil.init({ identity });
  assert.deepEqual(tab.typesSince(before), ['InitCompleted', 'InitCompleted']);
  assert.equal(tab.events.at(-1).payload.status, 'established');
  const next = identityAt(clock.now());
  answer(success(next));
  await clock.advance(0);
  assert.equal(network.calls.length, 1, 'no second request');
  assert.equal(tab.veil.getAdvertisingToken(), next.advertising_token);
});

test('a page that calls init every half second still refreshes (the jitter is not started over)', async () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab('https://pub.example', { random: () => 0.99 }); // 1.98 s of jitter
  const identity = identityAt(browser.clock.now());
  tab.veil.init({ identity });
  browser.network.respond = () => success(identityAt(browser.clock.now()));
  await browser.clock.advance(HOUR);
  for (let i = 0; i < 10; i++) {
    tab.veil.init({});
    await browser.clock.advance(500);
  }
  assert.equal(browser.network.calls.length, 1);
  assert.notEqual(tab.veil.getAdvertisingToken(), identity.advertising_token);
});

test('init again without identity keeps an identity held in memory when storage does not work', () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab('https://pub.example', { brokenStorage: true });
  const identity = identityAt(browser.clock.now());
  tab.veil.init({ identity });
  tab.veil.init({});
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
  assert.equal(tab.events.at(-1).payload.status, 'established');
});

test('init again with other settings, or after abort, starts over', async () => {
  const { tab, identity, clock, network } = loggedIn();
  await clock.advance(HOUR);
  assert.equal(network.calls.length, 1); // failed: the fake network is down
  tab.veil.init({ refreshRetryPeriod: 2000 });
  await clock.advance(0);
  assert.equal(network.calls.length, 2, 'a new start refreshes at once');
  tab.veil.abort();
  tab.veil.init({ refreshRetryPeriod: 2000 });
  await clock.advance(0);
  assert.equal(network.calls.length, 3);
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
});

test('getAdvertisingTokenAsync settles after init: resolves with the token, rejects without identity', async () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab();
  const early = tab.veil.getAdvertisingTokenAsync();
  const identity = identityAt(browser.clock.now());
  tab.veil.init({ identity });
  assert.equal(await early, identity.advertising_token);
  tab.veil.disconnect();
  await assert.rejects(tab.veil.getAdvertisingTokenAsync(), /must log in/);
});

test('getAdvertisingTokenAsync waits for the refresh when the advertising token has expired', async () => {
  const lifetimes = { refreshFrom: HOUR, identity: HOUR, refresh: 10 * HOUR };
  const { browser, tab, clock, network } = loggedIn({ lifetimes });
  tab.veil.abort();
  await clock.advance(2 * HOUR);
  const page = browser.openTab();
  const answer = holdAnswers(network);
  page.veil.init({});
  let settled = false;
  const token = page.veil.getAdvertisingTokenAsync().finally(() => {
    settled = true;
  });
  await clock.advance(10);
  assert.equal(settled, false);
  const next = identityAt(clock.now());
  answer(success(next));
  assert.equal(await token, next.advertising_token);
});

test('getAdvertisingTokenAsync rejects when the refresh of an expired advertising token fails, not after the outage', async () => {
  const lifetimes = { refreshFrom: HOUR, identity: HOUR, refresh: 10 * HOUR };
  const { tab, clock, network } = loggedIn({ lifetimes });
  await clock.advance(HOUR + 1);
  let outcome = 'pending';
  tab.veil.getAdvertisingTokenAsync().then(() => {
    outcome = 'resolved';
  }, (e) => {
    outcome = e.message;
  });
  await clock.advance(6 * SECOND); // the next attempt, one retry period after the first
  assert.equal(network.calls.length, 2, 'the network is down (the fake fetch throws)');
  assert.match(outcome, /expired and its refresh failed/);
  assert.equal(tab.veil.isLoginRequired(), false, 'still logged in: the SDK keeps retrying');
  const next = identityAt(clock.now());
  network.respond = () => success(next);
  await clock.advance(10 * SECOND);
  assert.equal(await tab.veil.getAdvertisingTokenAsync(), next.advertising_token);
});

test('callbacks: a throwing callback does not stop the others', () => {
  const tab = new FakeBrowser().openTab();
  const seen = [];
  tab.veil.callbacks.push(() => {
    throw new Error('publisher bug');
  }, (type) => seen.push(type));
  tab.veil.init({});
  assert.deepEqual(seen, ['SdkLoaded', 'InitCompleted']);
  assert.equal(tab.errors.length, 2);
});

test('init callback option receives the events from init on', async () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab();
  const seen = [];
  tab.veil.init({ identity: identityAt(browser.clock.now()), callback: (type, p) => seen.push(type + ':' + p.status) });
  browser.network.respond = () => OPTOUT;
  await browser.clock.advance(HOUR);
  assert.deepEqual(seen, ['InitCompleted:established', 'OptedOut:optout']);
});

test('an altered stored identity whose token expires before refresh_from is refreshed then, not left without a token', async () => {
  const browser = new FakeBrowser();
  const now = browser.clock.now();
  const altered = { ...identityAt(now), identity_expires: now + 10 * SECOND, refresh_from: now + 10 * HOUR };
  browser.storages.set('https://pub.example', new Map([['__veil_identity', JSON.stringify(altered)]]));
  const tab = browser.openTab();
  tab.veil.init({});
  const next = identityAt(now + 10 * SECOND);
  browser.network.respond = () => success(next);
  await browser.clock.advance(10 * SECOND);
  let token;
  tab.veil.getAdvertisingTokenAsync().then((t) => {
    token = t;
  });
  await browser.clock.advance(3 * SECOND);
  assert.equal(token, next.advertising_token, 'getAdvertisingTokenAsync settled with the refreshed token');
  assert.equal(browser.network.calls.length, 1);
});

test('a refresh answered by something that is not Veil (wrong baseUrl) warns once, and is retried', async () => {
  const { tab, clock, network } = loggedIn({ init: { baseUrl: 'https://www.pub.example' } });
  network.respond = () => ({ status: 404, body: '<!doctype html><title>Not found</title>' });
  await clock.advance(HOUR + 30 * SECOND);
  assert.ok(network.calls.length >= 3);
  assert.equal(tab.warnings.length, 1);
  assert.match(tab.warnings[0][0], /https:\/\/www\.pub\.example\/v1\/token\/refresh answered HTTP 404 .*is baseUrl the Veil API/);
  assert.equal(tab.veil.isLoginRequired(), false);
});

test('a server in trouble (503) is retried without a warning', async () => {
  const { tab, clock, network } = loggedIn();
  network.respond = () => ({ status: 503, body: { status: 'unknown', message: 'Not ready' } });
  await clock.advance(HOUR + 30 * SECOND);
  assert.ok(network.calls.length >= 3);
  assert.deepEqual(tab.warnings, []);
});

test('cookie mode: stores a cookie for the domain and path until refresh_expires', () => {
  const { browser, identity } = loggedIn({
    origin: 'http://a.pub.test',
    init: { storage: 'cookie', cookieDomain: 'pub.test', cookiePath: '/' },
  });
  const line = browser.cookies.lines.at(-1);
  assert.match(line, /^__veil_identity=[^;]+; path=\/; domain=pub\.test; expires=[^;]+; SameSite=Lax$/);
  assert.equal(Date.parse(line.match(/expires=([^;]+)/)[1]), Math.floor(identity.refresh_expires / 1000) * 1000);
  assert.equal(browser.storages.get('http://a.pub.test').size, 0, 'nothing in localStorage');
});

test('cookie mode: secure pages set a Secure cookie', () => {
  const { browser } = loggedIn({ origin: 'https://a.pub.test', init: { storage: 'cookie' } });
  assert.match(browser.cookies.lines.at(-1), /; Secure$/);
});

test('cookie mode: another subdomain sees the identity, and its logout reaches the first by polling', async () => {
  const options = { storage: 'cookie', cookieDomain: 'pub.test' };
  const { browser, tab: a, identity, clock } = loggedIn({ origin: 'http://a.pub.test', init: options });
  const b = browser.openTab('http://b.pub.test');
  b.veil.init(options);
  assert.equal(b.veil.getAdvertisingToken(), identity.advertising_token);
  b.veil.disconnect();
  assert.match(browser.cookies.lines.at(-1), /^__veil_identity=; path=\/; domain=pub\.test; expires=Thu, 01 Jan 1970/);
  assert.equal(a.veil.getAdvertisingToken(), identity.advertising_token, 'not yet polled');
  await clock.advance(1000);
  assert.equal(a.veil.isLoginRequired(), true);
  assert.equal(a.events.at(-1).type, 'LoggedOut');
});

test('cookie mode: a refresh on one subdomain is adopted by the other', async () => {
  const options = { storage: 'cookie', cookieDomain: 'pub.test' };
  const { browser, tab: a, identity, clock, network } = loggedIn({ origin: 'http://a.pub.test', init: options });
  const b = browser.openTab('http://b.pub.test');
  b.veil.init(options);
  const next = identityAt(identity.refresh_from);
  network.respond = () => success(next);
  await clock.advance(HOUR + 1000);
  assert.equal(network.calls.length, 1);
  assert.equal(a.veil.getAdvertisingToken(), next.advertising_token);
  assert.equal(b.veil.getAdvertisingToken(), next.advertising_token);
});

test('cookie mode: disconnect before init clears the identity cookie, whatever its domain', () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab('http://a.pub.test');
  tab.veil.init({ identity: identityAt(browser.clock.now()), storage: 'cookie', cookieDomain: 'pub.test' });
  const logoutPage = browser.openTab('http://a.pub.test');
  logoutPage.veil.disconnect();
  assert.doesNotMatch(browser.cookies.header('a.pub.test'), /__veil_identity/);
  assert.doesNotMatch(browser.cookies.header('b.pub.test'), /__veil_identity/);
});

test('cookie mode: a refresh answered after another subdomain logged out does not log the user back in', async () => {
  const options = { storage: 'cookie', cookieDomain: 'pub.test' };
  const { browser, tab: a, clock, network } = loggedIn({ origin: 'http://a.pub.test', init: options });
  const b = browser.openTab('http://b.pub.test', { random: () => 0.99 });
  b.veil.init(options);
  const answer = holdAnswers(network);
  await clock.advance(HOUR);
  assert.equal(network.calls.length, 1, 'a has a refresh in flight');
  b.veil.disconnect();
  answer(success(identityAt(clock.now())));
  await clock.advance(0);
  assert.equal(a.events.at(-1).type, 'LoggedOut');
  assert.equal(a.veil.isLoginRequired(), true);
  assert.doesNotMatch(browser.cookies.header('b.pub.test'), /__veil_identity/);
  await clock.advance(5 * SECOND);
  assert.equal(b.veil.isLoginRequired(), true);
  assert.equal(b.typesSince(0).filter((t) => t === 'IdentityUpdated').length, 0);
});

test('a refresh answered after another tab logged out does not log the user back in (localStorage)', async () => {
  const { browser, tab: a, clock, network } = loggedIn();
  const answer = holdAnswers(network);
  await clock.advance(HOUR);
  assert.equal(network.calls.length, 1);
  // The other tab's removal lands in storage before its storage event reaches this tab.
  browser.storages.get('https://pub.example').delete('__veil_identity');
  answer(success(identityAt(clock.now())));
  await clock.advance(0);
  assert.equal(a.events.at(-1).type, 'LoggedOut');
  assert.equal(a.stored(), null);
});

test('cookie mode: a host-only cookie left from before cookieDomain was set does not survive disconnect', async () => {
  const browser = new FakeBrowser();
  const old = browser.openTab('http://www.pub.test');
  const identity = identityAt(browser.clock.now());
  old.veil.init({ identity, storage: 'cookie' });
  assert.match(browser.cookies.header('www.pub.test'), /__veil_identity=/);
  const page = browser.openTab('http://www.pub.test');
  page.veil.init({ storage: 'cookie', cookieDomain: 'pub.test' });
  assert.equal(page.veil.getAdvertisingToken(), identity.advertising_token);
  page.veil.disconnect();
  assert.doesNotMatch(browser.cookies.header('www.pub.test'), /__veil_identity/);
  const reload = browser.openTab('http://www.pub.test');
  reload.veil.init({ storage: 'cookie', cookieDomain: 'pub.test' });
  assert.equal(reload.veil.isLoginRequired(), true);
});

test('cookie mode: a login with cookieDomain replaces a host-only cookie that would hide it', () => {
  const browser = new FakeBrowser();
  const old = browser.openTab('http://www.pub.test');
  old.veil.init({ identity: identityAt(browser.clock.now()), storage: 'cookie' });
  const page = browser.openTab('http://www.pub.test');
  const next = identityAt(browser.clock.now() + SECOND);
  page.veil.init({ identity: next, storage: 'cookie', cookieDomain: 'pub.test' });
  assert.deepEqual(page.warnings, [], 'the cookie reads back');
  const other = browser.openTab('http://news.pub.test');
  other.veil.init({ storage: 'cookie', cookieDomain: 'pub.test' });
  assert.equal(other.veil.getAdvertisingToken(), next.advertising_token);
  assert.equal(browser.cookies.header('www.pub.test').split('__veil_identity=').length, 2, 'one cookie');
});

test('cookie mode: a cookie domain the page cannot set keeps the identity in memory, with a warning', async () => {
  const { tab, identity, clock, network } = loggedIn({
    origin: 'http://a.pub.test',
    init: { storage: 'cookie', cookieDomain: 'other.test' },
  });
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
  assert.equal(tab.warnings.length, 1);
  network.respond = () => success(identityAt(clock.now()));
  await clock.advance(HOUR);
  assert.equal(network.calls.length, 1, 'the missing cookie is not taken for a logout');
  assert.equal(tab.veil.isLoginRequired(), false);
});

test('localStorage that throws: the identity lives in memory and is still refreshed', async () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab('https://pub.example', { brokenStorage: true });
  const identity = identityAt(browser.clock.now());
  tab.veil.init({ identity });
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
  const next = identityAt(identity.refresh_from);
  browser.network.respond = () => success(next);
  await browser.clock.advance(HOUR);
  assert.equal(tab.veil.getAdvertisingToken(), next.advertising_token);
});

test('a tab whose writes fail (full localStorage) still takes a logout made in another tab', async () => {
  const browser = new FakeBrowser();
  const other = browser.openTab();
  const identity = identityAt(browser.clock.now());
  other.veil.init({ identity });
  other.veil.abort(); // only this tab refreshes
  const full = browser.openTab('https://pub.example', { brokenStorage: true });
  full.veil.init({});
  const next = identityAt(identity.refresh_from);
  browser.network.respond = () => success(next);
  await browser.clock.advance(HOUR);
  assert.equal(full.veil.getAdvertisingToken(), next.advertising_token);
  assert.equal(full.warnings.length, 1, 'its refreshed pair could not be stored');

  browser.openTab().veil.disconnect(); // a logout in a third tab, before its init
  assert.equal(full.events.at(-1).type, 'LoggedOut');
  assert.equal(full.veil.isLoginRequired(), true);
});

test('an opt-out when localStorage takes no new value (full) still removes the stored identity', async () => {
  const browser = new FakeBrowser();
  const first = browser.openTab();
  first.veil.init({ identity: identityAt(browser.clock.now()) });
  first.veil.abort();
  const tab = browser.openTab('https://pub.example', { brokenStorage: true });
  tab.veil.init({});
  browser.network.respond = () => OPTOUT;
  await browser.clock.advance(HOUR);
  assert.equal(tab.events.at(-1).type, 'OptedOut');
  assert.equal(tab.stored(), null);
});

test('cookie mode without a real origin (sandboxed iframe): the identity lives in memory, with a warning', async () => {
  const browser = new FakeBrowser();
  const tab = browser.openTab('https://pub.example', { opaqueOrigin: true });
  const identity = identityAt(browser.clock.now());
  tab.veil.init({ identity, storage: 'cookie' });
  assert.equal(tab.veil.getAdvertisingToken(), identity.advertising_token);
  assert.equal(tab.events.at(-1).payload.status, 'established');
  assert.equal(tab.warnings.length, 1);
  const next = identityAt(identity.refresh_from);
  browser.network.respond = () => success(next);
  await browser.clock.advance(HOUR + 2 * SECOND);
  assert.equal(browser.network.calls.length, 1, 'the unreadable cookie is not taken for a logout');
  assert.equal(tab.veil.getAdvertisingToken(), next.advertising_token);
  tab.veil.disconnect();
  assert.equal(tab.events.at(-1).type, 'LoggedOut');
});

test('a clock far ahead of the server does not make the SDK refresh in a loop', async () => {
  const { tab, clock, network } = loggedIn();
  await clock.advance(0);
  // Every identity the server issues looks due at once to this computer.
  network.respond = () => success(identityAt(clock.now() - 2 * HOUR));
  await clock.advance(HOUR + 20 * SECOND);
  assert.ok(network.calls.length <= 5, network.calls.length + ' refreshes in 20 s');
  assert.equal(tab.veil.isLoginRequired(), false);
});

test('coming back online retries at once instead of waiting for the retry period', async () => {
  const { tab, identity, clock, network } = loggedIn({ init: { refreshRetryPeriod: 60 * SECOND } });
  await clock.advance(HOUR);
  assert.equal(network.calls.length, 1);
  const next = identityAt(clock.now());
  network.respond = () => success(next);
  tab.window.dispatchEvent(new Event('online'));
  await clock.advance(0);
  assert.equal(network.calls.length, 2);
  assert.equal(tab.veil.getAdvertisingToken(), next.advertising_token);
  assert.notEqual(identity.advertising_token, next.advertising_token);
});
