'use strict';
// Fakes for the SDK's `env`: a clock whose timers run only when the test advances time, a fetch
// that answers what the test scripts, and a browser whose tabs share localStorage (with storage
// events to the other tabs, as browsers do) and a cookie jar. No real time passes in these tests.

const { createVeil } = require('../veil-sdk.js');

/** Lets promise chains (fetch answers, their .then handlers) run to completion. */
async function settle() {
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

class FakeClock {
  constructor(start) {
    this.time = start;
    this.timers = new Map();
    this.nextId = 1;
    this.requestedDelays = [];
  }

  now() {
    return this.time;
  }

  setTimeout(fn, ms) {
    this.requestedDelays.push(ms);
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn, every: 0 });
    return id;
  }

  setInterval(fn, ms) {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, fn, every: ms });
    return id;
  }

  clear(id) {
    this.timers.delete(id);
  }

  /** Moves time forward by `ms`, running every timer that falls due, in order, with its promises. */
  async advance(ms) {
    const target = this.time + ms;
    for (;;) {
      let nextId = null;
      let next = null;
      for (const [id, timer] of this.timers) {
        if (timer.at <= target && (next === null || timer.at < next.at)) {
          nextId = id;
          next = timer;
        }
      }
      if (next === null) {
        break;
      }
      this.time = Math.max(this.time, next.at);
      if (next.every > 0) {
        next.at += next.every;
      } else {
        this.timers.delete(nextId);
      }
      next.fn();
      await settle();
    }
    this.time = target;
    await settle();
  }

  /** Pending one-shot timers (not intervals). */
  pendingTimeouts() {
    return [...this.timers.values()].filter((t) => t.every === 0).length;
  }
}

/** A scripted fetch: `respond(call)` returns {status, body} (body: object or string) or throws. */
class FakeFetch {
  constructor(clock) {
    this.clock = clock;
    this.calls = [];
    this.respond = () => {
      throw new TypeError('Failed to fetch');
    };
  }

  fetch(url, request) {
    const call = { url, request, at: this.clock.now(), body: JSON.parse(request.body) };
    this.calls.push(call);
    let answer;
    try {
      answer = this.respond(call);
    } catch (e) {
      return Promise.reject(e);
    }
    return Promise.resolve(answer).then((a) => {
      if (request.signal && request.signal.aborted) {
        throw new DOMException('aborted', 'AbortError');
      }
      const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      return { status: a.status, text: () => Promise.resolve(text) };
    });
  }

  refreshCalls() {
    return this.calls.filter((c) => c.url.endsWith('/v1/token/refresh'));
  }
}

class FakeStorageEvent extends Event {
  constructor(key, newValue) {
    super('storage');
    this.key = key;
    this.newValue = newValue;
  }
}

/** Cookies by name, domain and path; expired ones vanish; `set` lines are kept for assertions. */
class CookieJar {
  constructor(clock) {
    this.clock = clock;
    this.cookies = [];
    this.lines = [];
  }

  set(line, host) {
    this.lines.push(line);
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const cookie = { name: pair.slice(0, eq), value: pair.slice(eq + 1), path: '/', domain: null, expires: Infinity };
    for (const attr of attrs) {
      const [k, v] = attr.split('=');
      const key = k.toLowerCase();
      if (key === 'path') cookie.path = v;
      if (key === 'domain') cookie.domain = v.replace(/^\./, '');
      if (key === 'expires') cookie.expires = Date.parse(v);
      if (key === 'max-age') cookie.expires = this.clock.now() + Number(v) * 1000;
    }
    if (cookie.domain && !(host === cookie.domain || host.endsWith('.' + cookie.domain))) {
      return; // a browser refuses a domain that is not this host or a parent of it
    }
    const scope = cookie.domain || host;
    this.cookies = this.cookies.filter((c) => !(c.name === cookie.name && c.scope === scope && c.path === cookie.path));
    if (cookie.expires > this.clock.now()) {
      this.cookies.push({ ...cookie, scope, hostOnly: !cookie.domain });
    }
  }

  header(host) {
    return this.cookies
      .filter((c) => c.expires > this.clock.now())
      .filter((c) => (c.hostOnly ? c.scope === host : host === c.scope || host.endsWith('.' + c.scope)))
      .map((c) => c.name + '=' + c.value)
      .join('; ');
  }
}

/** Tabs of one browser profile: shared localStorage per origin and one cookie jar. */
class FakeBrowser {
  constructor(start = Date.UTC(2025, 2, 1, 12, 0, 0)) {
    this.clock = new FakeClock(start);
    this.network = new FakeFetch(this.clock);
    this.cookies = new CookieJar(this.clock);
    this.storages = new Map();
    this.tabs = [];
  }

  /**
   * A new tab on `origin` with its own SDK instance; its events are recorded in tab.events.
   * Options: `brokenStorage` (localStorage throws), `opaqueOrigin` (document.cookie throws, as in a
   * sandboxed iframe), `random` (the SDK's randomness; default always 0, so no jitter).
   */
  openTab(origin = 'https://pub.example', options = {}) {
    const url = new URL(origin);
    if (!this.storages.has(url.origin)) {
      this.storages.set(url.origin, new Map());
    }
    const data = this.storages.get(url.origin);
    const browser = this;
    const win = new EventTarget();
    const tab = { origin: url.origin, window: win, events: [], errors: [], warnings: [] };
    win.localStorage = {
      getItem: (k) => (data.has(k) ? data.get(k) : null),
      setItem: (k, v) => {
        if (options.brokenStorage) {
          throw new DOMException('quota', 'QuotaExceededError');
        }
        data.set(k, String(v));
        browser.storageChanged(tab, k, String(v));
      },
      removeItem: (k) => {
        if (data.delete(k)) {
          browser.storageChanged(tab, k, null);
        }
      },
    };
    const doc = {};
    const noCookies = () => {
      throw new DOMException('The document is sandboxed and lacks the allow-same-origin flag.', 'SecurityError');
    };
    Object.defineProperty(doc, 'cookie', {
      get: () => (options.opaqueOrigin ? noCookies() : browser.cookies.header(url.hostname)),
      set: (line) => (options.opaqueOrigin ? noCookies() : browser.cookies.set(line, url.hostname)),
    });
    tab.env = {
      now: () => this.clock.now(),
      random: options.random || (() => 0),
      setTimeout: (fn, ms) => this.clock.setTimeout(fn, ms),
      clearTimeout: (id) => this.clock.clear(id),
      setInterval: (fn, ms) => this.clock.setInterval(fn, ms),
      clearInterval: (id) => this.clock.clear(id),
      fetch: (u, r) => this.network.fetch(u, r),
      window: win,
      document: doc,
      location: { protocol: url.protocol, origin: url.origin, hostname: url.hostname },
      defaultBaseUrl: 'https://veil.example',
      console: {
        error: (...args) => tab.errors.push(args),
        warn: (...args) => tab.warnings.push(args),
      },
    };
    tab.veil = createVeil(tab.env);
    tab.veil.callbacks.push((type, payload) => tab.events.push({ type, payload, at: this.clock.now() }));
    tab.stored = () => data.get('__veil_identity') || null;
    tab.typesSince = (n) => tab.events.slice(n).map((e) => e.type);
    this.tabs.push(tab);
    return tab;
  }

  /** Another tab wrote: every other tab of that origin gets a storage event (not the writer). */
  storageChanged(writer, key, newValue) {
    for (const tab of this.tabs) {
      if (tab !== writer && tab.origin === writer.origin) {
        tab.window.dispatchEvent(new FakeStorageEvent(key, newValue));
      }
    }
  }
}

let counter = 0;

/** An identity as the server would issue it at `now`: refresh from +1 h, expiry +72 h, refresh expiry +30 d. */
function identityAt(now, lifetimes = {}) {
  counter += 1;
  return {
    advertising_token: 'A4AAAA' + counter + '-adv',
    refresh_token: 'cAAAA' + counter + '+refresh/=',
    identity_expires: now + (lifetimes.identity || 72 * 3600e3),
    refresh_from: now + (lifetimes.refreshFrom || 3600e3),
    refresh_expires: now + (lifetimes.refresh || 30 * 24 * 3600e3),
  };
}

const success = (identity) => ({ status: 200, body: { status: 'success', body: identity } });
const OPTOUT = { status: 200, body: { status: 'optout' } };

module.exports = { FakeBrowser, FakeClock, identityAt, success, OPTOUT, settle };
