/*! @veil/sdk | the Veil browser SDK (global __veil) | Apache-2.0 */
/*
 * Design note.
 *
 * The publisher's server generates an identity (the body of POST /v1/token/generate) after the
 * user logged in and hands it to __veil.init(). From then on this script keeps it, in
 * localStorage or in a cookie, refreshes it from `refresh_from` on, and ends it on opt-out, on
 * expiry (`refresh_expires`) or when the page calls disconnect().
 *
 * - One state: `identity` (or null). Every change goes through setIdentity() or endIdentity(),
 *   which persist it, reschedule the refresh timer and emit exactly one event.
 * - Timing is decided by the pure function planRefresh(identity, now, retryAt); the timer only
 *   wakes the instance up to ask it again, so a throttled or late timer never does harm.
 * - Tabs share the identity through storage: a `storage` event (localStorage) or a poll of
 *   document.cookie (cookie mode, which also spans subdomains) makes the other tabs adopt a
 *   refresh, a login or a logout. Each attempt waits a random jitter (up to REFRESH_JITTER_MS),
 *   then re-reads storage, so tabs rarely refresh twice; if they do, both pairs are valid and the
 *   last one written wins everywhere. Storage is read again when the answer arrives: if another tab
 *   logged out or replaced the identity meanwhile, that wins over the answer.
 * - Only a definite answer ends an identity: `optout`, or a refusal of the refresh token. A failed
 *   request (network down, 5xx, 429, no answer within the refresh timeout, anything unexpected)
 *   keeps it and retries every `refreshRetryPeriod` until `refresh_expires`.
 * - A pair that looks due the moment it arrives (the browser's clock runs ahead of the server's),
 *   whether refreshed here or adopted from another tab, is refreshed no sooner than a retry period
 *   later: tabs adopting each other's pairs must not refresh in a loop.
 * - The refresh is a CORS "simple request": POST with a text/plain JSON body, no custom header,
 *   no credentials, so the browser sends no preflight. No eval and no DOM sinks: the script runs
 *   under `script-src 'self'` and Trusted Types.
 * - Everything the browser provides (clock, timers, fetch, storage, events) comes in through
 *   `env`, so the tests drive the same code with a fake clock (see test/).
 */
(function (root) {
  'use strict';

  const VERSION = '0.2.0';
  /** The localStorage key and the cookie name. */
  const STORAGE_KEY = '__veil_identity';
  const DEFAULT_RETRY_PERIOD_MS = 5000;
  const MIN_RETRY_PERIOD_MS = 1000;
  /** The longest a refresh request may take; it is also cut to REFRESH_TIMEOUT_RETRIES retry periods. */
  const MAX_REFRESH_TIMEOUT_MS = 30000;
  const REFRESH_TIMEOUT_RETRIES = 4;
  /**
   * Each refresh attempt waits a random 0 to this many ms more, then re-reads storage: tabs that
   * hold the same identity then rarely send the same refresh token together.
   */
  const REFRESH_JITTER_MS = 2000;
  /** How often cookie mode looks for changes made by other tabs or subdomains. */
  const COOKIE_POLL_MS = 1000;
  /** setTimeout's largest delay; a longer wait is cut into several. */
  const MAX_TIMER_MS = 2147483647;

  const EventType = Object.freeze({
    SdkLoaded: 'SdkLoaded',
    InitCompleted: 'InitCompleted',
    IdentityUpdated: 'IdentityUpdated',
    OptedOut: 'OptedOut',
    Expired: 'Expired',
    LoggedOut: 'LoggedOut',
  });

  /** The identity fields we keep, copied from a generate or refresh body; null if it is not one. */
  function parseIdentity(value) {
    if (!value || typeof value !== 'object') {
      return null;
    }
    const id = {
      advertising_token: value.advertising_token,
      refresh_token: value.refresh_token,
      identity_expires: value.identity_expires,
      refresh_from: value.refresh_from,
      refresh_expires: value.refresh_expires,
    };
    const tokensOk = typeof id.advertising_token === 'string' && id.advertising_token !== ''
      && typeof id.refresh_token === 'string' && id.refresh_token !== '';
    const timesOk = [id.identity_expires, id.refresh_from, id.refresh_expires].every(Number.isFinite);
    return tokensOk && timesOk ? Object.freeze(id) : null;
  }

  function sameIdentity(a, b) {
    if (!a || !b) {
      return a === b;
    }
    return a.refresh_token === b.refresh_token && a.advertising_token === b.advertising_token;
  }

  /**
   * When `identity` is due for a refresh: at refresh_from, or when its advertising token expires if
   * that comes first (the server never issues such a pair, but a stored one may have been altered).
   */
  function refreshDue(identity) {
    return Math.min(identity.refresh_from, identity.identity_expires);
  }

  /**
   * What to do about `identity` at `now` (epoch ms): 'expire' it, 'refresh' it, or 'wait' `delay`
   * ms and ask again. `retryAt` is the earliest time of the next attempt after a failed one (0 if
   * none failed).
   */
  function planRefresh(identity, now, retryAt) {
    if (now >= identity.refresh_expires) {
      return { action: 'expire' };
    }
    const due = Math.max(refreshDue(identity), retryAt || 0);
    if (now >= due) {
      return { action: 'refresh' };
    }
    const wakeAt = Math.min(due, identity.refresh_expires);
    return { action: 'wait', delay: Math.min(wakeAt - now, MAX_TIMER_MS) };
  }

  /**
   * The meaning of an answer of /v1/token/refresh: 'refreshed' (with the new identity), 'optout',
   * 'refused' (the server will never accept this refresh token), or 'failed' (try again later). A
   * failure that is not a server's passing trouble (5xx, 429) is also `unexpected`: an answer that
   * is not Veil's, such as a 404 or an HTML page when baseUrl names the wrong server.
   */
  function classifyRefreshAnswer(httpStatus, text) {
    const failed = { kind: 'failed', unexpected: httpStatus !== 429 && !(httpStatus >= 500) };
    let json;
    try {
      json = JSON.parse(text);
    } catch (e) {
      return failed;
    }
    if (!json || typeof json !== 'object') {
      return failed;
    }
    if (httpStatus === 200 && json.status === 'optout') {
      return { kind: 'optout' };
    }
    if (httpStatus === 200 && json.status === 'success') {
      const body = json.body;
      // The request's older wording of an opt-out: success with empty token values.
      if (body && typeof body === 'object' && (body.advertising_token === '' || body.refresh_token === '')) {
        return { kind: 'optout' };
      }
      const next = parseIdentity(body);
      return next ? { kind: 'refreshed', identity: next } : failed;
    }
    if (httpStatus === 400 && ['error', 'invalid_token', 'expired_token'].includes(json.status)) {
      return { kind: 'refused' };
    }
    return failed;
  }

  const TOMBSTONE_PREFIX = '{"ended":';

  /** localStorage, shared by the tabs of one origin; other tabs' writes arrive as storage events. */
  function localStorageBackend(env) {
    const win = env.window;
    return {
      read() {
        try {
          return win.localStorage.getItem(STORAGE_KEY);
        } catch (e) {
          return null;
        }
      },
      write(text) {
        try {
          win.localStorage.setItem(STORAGE_KEY, text);
        } catch (e) {
          // Full or disabled: the identity lives in memory only (see persist()).
        }
      },
      remove(reason) {
        try {
          // A transient tombstone tells the other tabs why the identity ended.
          if (reason) {
            win.localStorage.setItem(STORAGE_KEY, TOMBSTONE_PREFIX + JSON.stringify(reason) + '}');
          }
        } catch (e) {
          // full: the other tabs will read a logout instead; the removal below matters more
        }
        try {
          win.localStorage.removeItem(STORAGE_KEY);
        } catch (e) {
          // disabled: nothing stored, nothing to remove
        }
      },
      watch(onChange) {
        const handler = (event) => {
          if (event.key === STORAGE_KEY || event.key === null) {
            const ended = endedReason(event.newValue);
            onChange(ended, ended !== null || event.newValue === null);
          }
        };
        win.addEventListener('storage', handler);
        return () => win.removeEventListener('storage', handler);
      },
    };
  }

  /**
   * A first-party cookie, which subdomains can share (cookieDomain); changes are found by polling.
   * A document without a real origin (a sandboxed iframe) throws on any use of document.cookie:
   * that reads as no cookie, and writes are lost (see persist()).
   *
   * Every `__veil_identity` cookie the page sees is the identity to it, wherever it was set: one left
   * from before cookieDomain (or cookiePath) was set or changed would hide ours and come back after a
   * logout. So a write that does not read back, and a removal that leaves one visible, clear every
   * scope the page can see (host-only and each parent domain, at cookiePath, at / and at each
   * directory of the page's path).
   */
  function cookieBackend(env, domain, path) {
    const doc = env.document;
    const secure = env.location && env.location.protocol === 'https:';
    const line = (value, scopeDomain, scopePath, expires) => STORAGE_KEY + '=' + value + '; path=' + scopePath
      + (scopeDomain ? '; domain=' + scopeDomain : '') + '; expires=' + new Date(expires).toUTCString()
      + (expires === 0 ? '; max-age=0' : '') + '; SameSite=Lax' + (secure ? '; Secure' : '');
    const cookies = () => {
      try {
        return String(doc.cookie || '');
      } catch (e) {
        return '';
      }
    };
    const setCookie = (text) => {
      try {
        doc.cookie = text;
      } catch (e) {
        // no cookies here: the identity lives in memory only
      }
    };
    const read = () => {
      const prefix = STORAGE_KEY + '=';
      for (const part of cookies().split(';')) {
        const cookie = part.trim();
        if (cookie.startsWith(prefix)) {
          try {
            return decodeURIComponent(cookie.slice(prefix.length));
          } catch (e) {
            return null;
          }
        }
      }
      return null;
    };
    const clearEveryScope = () => {
      const host = (env.location && env.location.hostname) || '';
      const domains = [undefined];
      if (/[a-z]/i.test(host) && !host.includes(':')) { // a name, not an IP address
        const labels = host.split('.');
        for (let i = 0; i < labels.length - 1; i++) {
          domains.push(labels.slice(i).join('.'));
        }
      }
      // A cookie of any path the page's own path starts with is visible here.
      const paths = new Set(['/', path]);
      let prefix = '';
      for (const part of String((env.location && env.location.pathname) || '/').split('/').slice(1, -1)) {
        prefix += '/' + part;
        paths.add(prefix);
      }
      for (const scopePath of paths) {
        for (const scopeDomain of domains) {
          setCookie(line('', scopeDomain, scopePath, 0));
        }
      }
    };
    let last = null; // what this page last wrote or saw, so the poll reports only others' changes
    return {
      read,
      write(text, identity) {
        const cookie = line(encodeURIComponent(text), domain, path, identity.refresh_expires);
        setCookie(cookie);
        if (read() !== text && read() !== null) {
          clearEveryScope(); // another scope's cookie hides ours
          setCookie(cookie);
        }
        last = read();
      },
      remove() {
        setCookie(line('', domain, path, 0));
        if (read() !== null) {
          clearEveryScope();
        }
        last = read();
      },
      watch(onChange) {
        last = read();
        const handle = env.setInterval(() => {
          const current = read();
          if (current !== last) {
            last = current;
            onChange(null, current === null);
          }
        }, COOKIE_POLL_MS);
        return () => env.clearInterval(handle);
      },
    };
  }

  function endedReason(storedText) {
    if (typeof storedText !== 'string' || !storedText.startsWith(TOMBSTONE_PREFIX)) {
      return null;
    }
    try {
      const reason = JSON.parse(storedText).ended;
      return ['optout', 'expired', 'refused', 'logout'].includes(reason) ? reason : null;
    } catch (e) {
      return null;
    }
  }

  /**
   * `value` as the base of API URLs (scheme and host lower-cased, no trailing slash), or null if it
   * is not an absolute http(s) URL without query, fragment, credentials or whitespace.
   */
  function parseBaseUrl(value) {
    if (typeof value !== 'string' || /[\s?#]/.test(value)) {
      return null;
    }
    let url;
    try {
      url = new URL(value);
    } catch (e) {
      return null;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
      return null;
    }
    return url.origin + url.pathname.replace(/\/+$/, '');
  }

  /** Why `value` is not a generate body, in words a publisher can act on (init's error). */
  function identityProblem(value) {
    if (typeof value === 'string') {
      return 'identity must be an object, not a string (JSON.parse the generate body first)';
    }
    if (typeof value !== 'object') {
      return 'identity must be the body of a generate response (an object)';
    }
    if (typeof value.status === 'string') {
      return 'identity must be the `body` of the generate response, not the whole response'
        + (value.status === 'optout' ? " (status 'optout': the user opted out, do not call init)" : '');
    }
    for (const name of ['advertising_token', 'refresh_token']) {
      if (typeof value[name] !== 'string' || value[name] === '') {
        return 'identity.' + name + ' must be a non-empty string, as in the generate body';
      }
    }
    for (const name of ['identity_expires', 'refresh_from', 'refresh_expires']) {
      if (!Number.isFinite(value[name])) {
        return 'identity.' + name + ' must be a number (epoch milliseconds), as in the generate body';
      }
    }
    return 'identity must be the body of a generate response';
  }

  function normalizeOptions(opts, env) {
    if (!opts || typeof opts !== 'object') {
      throw new TypeError('__veil.init: pass an options object, e.g. {identity: <generate response body>}');
    }
    const storage = opts.storage === undefined ? 'localStorage' : opts.storage;
    if (storage !== 'localStorage' && storage !== 'cookie') {
      throw new TypeError("__veil.init: storage must be 'localStorage' or 'cookie'");
    }
    const retry = opts.refreshRetryPeriod === undefined ? DEFAULT_RETRY_PERIOD_MS : opts.refreshRetryPeriod;
    if (!Number.isFinite(retry) || retry < MIN_RETRY_PERIOD_MS) {
      throw new TypeError('__veil.init: refreshRetryPeriod must be a number of milliseconds, at least '
        + MIN_RETRY_PERIOD_MS);
    }
    const baseUrl = parseBaseUrl(opts.baseUrl === undefined ? env.defaultBaseUrl : opts.baseUrl);
    if (baseUrl === null) {
      throw new TypeError('__veil.init: baseUrl must be an http(s) URL without query, fragment or '
        + 'credentials, such as https://veil.example.com');
    }
    for (const name of ['cookieDomain', 'cookiePath']) {
      const value = opts[name];
      if (value !== undefined && (typeof value !== 'string' || value === '' || /[;,\s]/.test(value))) {
        throw new TypeError('__veil.init: ' + name + ' must be a non-empty string without ; , or spaces');
      }
    }
    if (opts.cookiePath !== undefined && !opts.cookiePath.startsWith('/')) {
      throw new TypeError("__veil.init: cookiePath must start with '/', such as '/' or '/news'");
    }
    if (opts.callback !== undefined && typeof opts.callback !== 'function') {
      throw new TypeError('__veil.init: callback must be a function');
    }
    let identity = null;
    if (opts.identity !== undefined && opts.identity !== null) {
      identity = parseIdentity(opts.identity);
      if (!identity) {
        throw new TypeError('__veil.init: ' + identityProblem(opts.identity));
      }
    }
    return {
      identity,
      baseUrl,
      refreshRetryPeriod: retry,
      storage,
      cookieDomain: opts.cookieDomain,
      cookiePath: opts.cookiePath || '/',
      callback: opts.callback || null,
    };
  }

  /**
   * One SDK instance over `env`: {now, random, setTimeout, clearTimeout, setInterval, clearInterval, fetch,
   * window (localStorage, add/removeEventListener), document (cookie), location, defaultBaseUrl,
   * console}.
   */
  function createVeil(env) {
    const listeners = [];
    const waiters = [];
    let options = null;
    let storage = null;
    let storageWorks = true;
    let warnedUnexpected = false;
    let identity = null;
    let initialized = false;
    let retryAt = 0;
    let timer = null;
    let inFlight = null;
    let unwatch = [];
    const random = env.random || Math.random;

    function now() {
      return env.now();
    }

    // ---- events --------------------------------------------------------------------------

    function payload(status) {
      return Object.freeze({ advertisingToken: getAdvertisingToken(), identity, status });
    }

    function call(listener, type, data) {
      try {
        listener(type, data);
      } catch (e) {
        if (env.console) {
          env.console.error('__veil: a callback threw on ' + type, e);
        }
      }
    }

    function emit(type, status) {
      const data = payload(status);
      const targets = listeners.slice();
      if (options && options.callback) {
        targets.push(options.callback);
      }
      for (const listener of targets) {
        call(listener, type, data);
      }
      settleWaiters();
    }

    function register(fn) {
      if (typeof fn !== 'function') {
        if (env.console) {
          env.console.warn('__veil.callbacks.push: ignoring a value that is not a function');
        }
        return;
      }
      const wasInitialized = initialized; // the SdkLoaded callback may call init() itself
      listeners.push(fn);
      call(fn, EventType.SdkLoaded, Object.freeze({}));
      if (wasInitialized) {
        call(fn, EventType.InitCompleted, payload(identity ? 'established' : 'no_identity'));
      }
    }

    const callbacks = [];
    Object.defineProperty(callbacks, 'push', {
      value: function push() {
        const fns = Array.prototype.slice.call(arguments);
        Array.prototype.push.apply(callbacks, fns);
        fns.forEach(register);
        return callbacks.length;
      },
    });

    /**
     * Settles the promises of getAdvertisingTokenAsync. While the advertising token has expired and
     * a refresh is due, they wait for its answer; `refreshFailed` (that answer was a failure) rejects
     * them instead of keeping them waiting through an outage.
     */
    function settleWaiters(refreshFailed) {
      if (!initialized || waiters.length === 0) {
        return;
      }
      const token = getAdvertisingToken();
      if (token === undefined && identity && !refreshFailed) {
        return; // its advertising token expired and a refresh is under way: wait for the answer
      }
      for (const waiter of waiters.splice(0)) {
        if (token !== undefined) {
          waiter.resolve(token);
        } else if (identity) {
          waiter.reject(new Error('__veil: the advertising token expired and its refresh failed; '
            + 'the SDK keeps retrying, ask again later'));
        } else {
          waiter.reject(new Error('__veil: no identity; the user must log in'));
        }
      }
    }

    // ---- storage ---------------------------------------------------------------------------

    /** The stored identity, or null when there is none, or only an expired or unreadable one. */
    function readStored() {
      const text = storage.read();
      if (typeof text !== 'string' || text.startsWith(TOMBSTONE_PREFIX)) {
        return null;
      }
      let stored;
      try {
        stored = parseIdentity(JSON.parse(text));
      } catch (e) {
        return null;
      }
      return stored && now() < stored.refresh_expires ? stored : null;
    }

    function persist(next) {
      const text = JSON.stringify(next);
      storage.write(text, next);
      const works = storage.read() === text;
      if (!works && storageWorks && env.console) {
        env.console.warn('__veil: cannot write ' + options.storage + (options.storage === 'cookie'
          ? ' (are cookieDomain and cookiePath a parent of this page\'s host and path?)' : '')
          + '; the identity is kept in memory only');
      }
      storageWorks = works;
    }

    // ---- state changes ---------------------------------------------------------------------

    /** Takes a new identity (established, refreshed or adopted from another tab). */
    function setIdentity(next, status, alreadyStored) {
      cancelTimer();
      cancelRefresh();
      identity = next;
      // A fresh identity (refreshed here, or by another tab just now) whose refresh_from already
      // looks past means this computer's clock runs ahead of the server's: refresh it no sooner
      // than a retry period, not in a loop of tabs adopting each other's pairs.
      const fresh = status === 'refreshed' || status === 'adopted';
      retryAt = fresh && now() >= refreshDue(next) ? now() + options.refreshRetryPeriod : 0;
      if (!alreadyStored) {
        persist(next);
      }
      emit(status === 'established' ? EventType.InitCompleted : EventType.IdentityUpdated, status);
      schedule();
    }

    /** Ends the identity: clears memory, storage (unless another tab did) and timers; one event. */
    function endIdentity(reason, alreadyRemoved) {
      identity = null;
      retryAt = 0;
      cancelTimer();
      cancelRefresh();
      if (!alreadyRemoved) {
        storage.remove(reason === 'logout' ? null : reason);
      }
      const type = reason === 'optout' ? EventType.OptedOut
        : reason === 'logout' ? EventType.LoggedOut : EventType.Expired;
      emit(type, reason);
    }

    /**
     * Adopts what another tab (or subdomain) stored, if it differs from ours; true if it did.
     * `ended` is the reason another tab gave when it removed the identity, when known; `removed`
     * says that another tab has just removed it.
     */
    function syncFromStorage(ended, removed) {
      if (!storageWorks) {
        // Our writes do not stick (storage full, a cookie we may not set), so what is stored may be
        // older than what we hold: adopt nothing. But another tab's logout is still a logout here.
        if (removed && identity) {
          endIdentity(ended || 'logout', true);
          return true;
        }
        return false;
      }
      const stored = readStored();
      if (sameIdentity(stored, identity)) {
        return false;
      }
      if (stored) {
        setIdentity(stored, 'adopted', true);
        return true;
      }
      if (!identity) {
        return false;
      }
      const expired = now() >= identity.refresh_expires;
      endIdentity(ended || (expired ? 'expired' : 'logout'), !expired);
      return true;
    }

    // ---- refresh ---------------------------------------------------------------------------

    function cancelTimer() {
      if (timer !== null) {
        env.clearTimeout(timer);
        timer = null;
      }
    }

    function cancelRefresh() {
      const running = inFlight;
      inFlight = null;
      if (running) {
        running.abort();
      }
    }

    function later(fn, delay) {
      timer = env.setTimeout(() => {
        timer = null;
        fn();
      }, delay);
    }

    /**
     * Acts on planRefresh. A due refresh first waits a random jitter (unless `jittered`, i.e. it
     * just did), never past refresh_expires, so that tabs holding the same identity spread out.
     */
    function schedule(jittered) {
      cancelTimer();
      if (!identity || inFlight) {
        return;
      }
      const plan = planRefresh(identity, now(), retryAt);
      if (plan.action === 'expire') {
        endIdentity('expired');
      } else if (plan.action === 'wait') {
        later(() => schedule(false), plan.delay);
      } else {
        const jitter = jittered ? 0 : Math.min(Math.floor(random() * REFRESH_JITTER_MS),
          identity.refresh_expires - now());
        if (jitter > 0) {
          later(() => schedule(true), jitter);
        } else {
          refresh();
        }
      }
    }

    /** How long a refresh request may go unanswered: then it counts as a failure, like no network. */
    function refreshTimeout() {
      return Math.min(MAX_REFRESH_TIMEOUT_MS, REFRESH_TIMEOUT_RETRIES * options.refreshRetryPeriod,
        Math.max(0, identity.refresh_expires - now()));
    }

    function refresh() {
      // Another tab may have refreshed (or ended) the identity already: adopt that instead.
      if (syncFromStorage(null)) {
        return;
      }
      const controller = typeof AbortController === 'function' ? new AbortController() : null;
      const deadline = env.setTimeout(() => {
        if (inFlight === mine) {
          inFlight = null;
          mine.abort();
          onRefreshAnswer({ kind: 'failed' });
        }
      }, refreshTimeout());
      const mine = {
        abort() {
          env.clearTimeout(deadline);
          if (controller) {
            controller.abort();
          }
        },
      };
      inFlight = mine;
      const request = {
        method: 'POST',
        // A string body is sent as text/plain: with no custom header this needs no CORS preflight.
        body: JSON.stringify({ refresh_token: identity.refresh_token }),
        credentials: 'omit',
        cache: 'no-store',
      };
      if (controller) {
        request.signal = controller.signal;
      }
      let answer;
      try {
        answer = Promise.resolve(env.fetch(options.baseUrl + '/v1/token/refresh', request))
          .then((response) => response.text().then((text) => {
            const result = classifyRefreshAnswer(response.status, text);
            if (result.unexpected && !warnedUnexpected && env.console) {
              warnedUnexpected = true;
              env.console.warn('__veil: ' + options.baseUrl + '/v1/token/refresh answered HTTP ' + response.status
                + ' but no refresh (is baseUrl the Veil API?); retrying every ' + options.refreshRetryPeriod + ' ms');
            }
            return result;
          }));
      } catch (e) {
        answer = Promise.resolve({ kind: 'failed' });
      }
      answer
        .catch(() => ({ kind: 'failed' }))
        .then((result) => {
          if (inFlight !== mine) {
            return; // aborted: the identity changed or ended meanwhile, or abort() was called
          }
          inFlight = null;
          env.clearTimeout(deadline);
          onRefreshAnswer(result);
        });
    }

    function onRefreshAnswer(result) {
      // While the request was out, another tab may have logged out, logged in or refreshed (in cookie
      // mode on another subdomain, which this page would only see at its next poll): what storage
      // holds now wins, so a late answer never undoes a logout.
      if (result.kind !== 'failed' && syncFromStorage(null)) {
        return;
      }
      if (result.kind === 'refreshed') {
        setIdentity(result.identity, 'refreshed', false);
      } else if (result.kind === 'optout') {
        endIdentity('optout');
      } else if (result.kind === 'refused') {
        endIdentity('refused');
      } else {
        retryAt = now() + options.refreshRetryPeriod;
        schedule();
        settleWaiters(true);
      }
    }

    // ---- lifecycle -------------------------------------------------------------------------

    function stopActivity() {
      cancelTimer();
      cancelRefresh();
      unwatch.forEach((stop) => stop());
      unwatch = [];
    }

    function watch() {
      unwatch.push(storage.watch((ended, removed) => {
        if (!syncFromStorage(ended, removed)) {
          schedule();
        }
      }));
      const win = env.window;
      if (win && typeof win.addEventListener === 'function') {
        // Timers of hidden tabs are throttled; catch up when the page shows or the network returns.
        const wake = () => {
          if (!syncFromStorage(null)) {
            schedule();
          }
        };
        const online = () => {
          retryAt = 0;
          wake();
        };
        win.addEventListener('visibilitychange', wake);
        win.addEventListener('online', online);
        unwatch.push(() => {
          win.removeEventListener('visibilitychange', wake);
          win.removeEventListener('online', online);
        });
      }
    }

    /**
     * True when init(`next`) would only take up the identity this page already keeps under the same
     * settings (a page that calls init again, e.g. on each route of a single-page app): then timers
     * and a refresh in flight go on, instead of starting over, which could put a refresh off for good.
     */
    function continues(next) {
      if (!identity || !options || unwatch.length === 0) {
        return false; // nothing kept, or abort() stopped it
      }
      for (const name of ['storage', 'baseUrl', 'refreshRetryPeriod', 'cookieDomain', 'cookiePath']) {
        if (options[name] !== next[name]) {
          return false;
        }
      }
      const stored = storageWorks ? readStored() : null;
      const given = next.identity;
      const chosen = given && (!stored || given.refresh_from >= stored.refresh_from) ? given : stored;
      // Storage that does not work holds nothing: the identity kept in memory is the stored one.
      return chosen === null ? !storageWorks : sameIdentity(chosen, identity);
    }

    function init(opts) {
      const next = normalizeOptions(opts, env);
      if (continues(next)) {
        options = next;
        emit(EventType.InitCompleted, 'established');
        return;
      }
      stopActivity();
      options = next;
      storage = next.storage === 'cookie'
        ? cookieBackend(env, next.cookieDomain, next.cookiePath) : localStorageBackend(env);
      storageWorks = true;
      warnedUnexpected = false;
      initialized = true;
      const stored = readStored();
      if (!stored && storage.read() !== null) {
        storage.remove(null); // expired or unreadable leftovers
      }
      // A page may pass the identity its server cached at login while this browser holds a newer
      // refresh of it: keep the newer one.
      const given = next.identity;
      const chosen = given && (!stored || given.refresh_from >= stored.refresh_from) ? given : stored;
      watch();
      if (!chosen) {
        identity = null;
        emit(EventType.InitCompleted, 'no_identity');
        return;
      }
      if (now() >= chosen.refresh_expires) {
        // InitCompleted comes first, as for every init; then why there is no identity.
        identity = null;
        storage.remove('expired');
        emit(EventType.InitCompleted, 'no_identity');
        emit(EventType.Expired, 'expired');
        return;
      }
      setIdentity(chosen, 'established', chosen === stored);
    }

    function getAdvertisingToken() {
      return identity && now() < identity.identity_expires ? identity.advertising_token : undefined;
    }

    function getAdvertisingTokenAsync() {
      return new Promise((resolve, reject) => {
        waiters.push({ resolve, reject });
        settleWaiters();
      });
    }

    function isLoginRequired() {
      return initialized ? identity === null : undefined;
    }

    function disconnect() {
      if (!storage) {
        // Before init: forget what a previous page stored, in localStorage and in any identity
        // cookie this page can see (cookie mode, whatever its cookieDomain and cookiePath).
        localStorageBackend(env).remove(null);
        cookieBackend(env, undefined, '/').remove();
        return;
      }
      identity = null;
      retryAt = 0;
      cancelTimer();
      cancelRefresh();
      storage.remove(null);
      emit(EventType.LoggedOut, 'logout');
    }

    function abort() {
      stopActivity();
    }

    return {
      version: VERSION,
      EventType,
      callbacks,
      init,
      getAdvertisingToken,
      getAdvertisingTokenAsync,
      isLoginRequired,
      disconnect,
      abort,
    };
  }

  /** The browser's implementation of `env`. Call while this script runs (currentScript). */
  function browserEnv(win) {
    const doc = win.document;
    const script = doc && doc.currentScript;
    let defaultBaseUrl = win.location ? win.location.origin : undefined;
    if (script && script.src) {
      try {
        defaultBaseUrl = new URL(script.src, win.location.href).origin;
      } catch (e) {
        // keep the page's origin
      }
    }
    return {
      now: () => Date.now(),
      random: () => Math.random(),
      setTimeout: (fn, ms) => win.setTimeout(fn, ms),
      clearTimeout: (handle) => win.clearTimeout(handle),
      setInterval: (fn, ms) => win.setInterval(fn, ms),
      clearInterval: (handle) => win.clearInterval(handle),
      fetch: (url, request) => win.fetch(url, request),
      window: win,
      document: doc,
      location: win.location,
      defaultBaseUrl,
      console: win.console,
    };
  }

  /**
   * Installs the SDK as `win.__veil`, keeping the object a page may have created to queue callbacks
   * (`window.__veil = window.__veil || {callbacks: []}`); each queued callback gets SdkLoaded.
   */
  function install(win, env) {
    const existing = win.__veil;
    if (existing && typeof existing.init === 'function') {
      if (win.console) {
        win.console.warn('__veil: the SDK is already loaded; ignoring a second copy');
      }
      return existing;
    }
    const target = existing && typeof existing === 'object' ? existing : {};
    const queued = Array.isArray(target.callbacks) ? target.callbacks.slice() : [];
    const sdk = createVeil(env || browserEnv(win));
    Object.assign(target, sdk);
    win.__veil = target;
    target.callbacks.push.apply(target.callbacks, queued);
    return target;
  }

  if (root && root.document && typeof root.addEventListener === 'function') {
    install(root);
  }
  if (typeof module === 'object' && module && module.exports) {
    module.exports = {
      VERSION, EventType, STORAGE_KEY, MAX_TIMER_MS, createVeil, install, planRefresh, classifyRefreshAnswer,
    };
  }
})(typeof window !== 'undefined' ? window : undefined);
