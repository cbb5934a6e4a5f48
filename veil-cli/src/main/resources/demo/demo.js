// The demo publisher page. Runs under the page's strict CSP: no inline script, no eval, no HTML
// strings (Trusted Types), only textContent.
(function () {
  'use strict';

  const veilBaseUrl = document.querySelector('meta[name="veil-base-url"]').content;
  const query = new URLSearchParams(location.search);
  // ?storage=cookie&cookieDomain=example.com tries cookie mode (shared across subdomains).
  const sdkOptions = { baseUrl: veilBaseUrl };
  if (query.get('storage') === 'cookie') {
    sdkOptions.storage = 'cookie';
    if (query.get('cookieDomain')) {
      sdkOptions.cookieDomain = query.get('cookieDomain');
    }
  }
  if (query.get('refreshRetryPeriod')) {
    sdkOptions.refreshRetryPeriod = Number(query.get('refreshRetryPeriod'));
  }

  // The SDK loads with `async`: queue our callback now; it gets SdkLoaded once the SDK is there.
  window.__veil = window.__veil || { callbacks: [] };
  window.__veil.callbacks.push(function (eventType, payload) {
    whenReady(() => onVeilEvent(eventType, payload));
  });

  function whenReady(fn) {
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', fn);
    } else {
      fn();
    }
  }

  const $ = (id) => document.getElementById(id);

  const MESSAGES = {
    InitCompleted: 'SDK ready: log in to get an advertising token.',
    IdentityUpdated: 'Token updated.',
    OptedOut: 'You opted out: your token was removed and no new one will be issued.',
    Expired: 'Your token expired: log in again.',
    LoggedOut: 'You are logged out.',
  };
  /** The status line while the SDK holds an identity, by the event that gave it. */
  const LOGGED_IN = {
    InitCompleted: 'Logged in: the SDK holds your advertising token.',
    IdentityUpdated: 'Logged in: the SDK refreshed your advertising token.',
  };
  /** Beyond this, a refresh is too far off to watch: the page says how to see one sooner. */
  const HINT_AFTER_MS = 60 * 1000;

  function onVeilEvent(eventType, payload) {
    logEvent(eventType, payload);
    if (eventType === 'SdkLoaded') {
      $('login').disabled = false;
      window.__veil.init(sdkOptions); // takes a stored identity (a reload, another tab) if there is one
      return;
    }
    $('status').textContent = (payload.identity && LOGGED_IN[eventType]) || MESSAGES[eventType] || eventType;
    $('status').dataset.loggedIn = String(Boolean(payload.identity));
    render(payload);
  }

  function logEvent(eventType, payload) {
    const item = document.createElement('li');
    item.dataset.type = eventType;
    item.dataset.status = payload.status || '';
    item.dataset.at = String(Date.now());
    item.textContent = new Date().toISOString().slice(11, 23) + ' ' + eventType
      + (payload.status ? ' (' + payload.status + ')' : '');
    $('events').appendChild(item);
  }

  function render(payload) {
    const identity = payload.identity;
    $('login-panel').hidden = Boolean(identity);
    $('session-panel').hidden = !identity;
    if (!identity) {
      return;
    }
    $('advertising-token').textContent = payload.advertisingToken || '(expired, refreshing…)';
    showTime($('identity-expires'), identity.identity_expires);
    showTime($('refresh-from'), identity.refresh_from);
    showTime($('refresh-expires'), identity.refresh_expires);
    $('refresh-hint').hidden = identity.refresh_from - Date.now() <= HINT_AFTER_MS;
    $('bid-request').textContent = JSON.stringify(bidRequest(payload.advertisingToken), null, 2);
    $('bid-result').textContent = '';
    $('bid-decrypted').hidden = true;
  }

  function showTime(element, epochMs) {
    element.dataset.ms = String(epochMs);
    element.textContent = new Date(epochMs).toLocaleString() + ' (' + relative(epochMs - Date.now()) + ')';
  }

  /** A time difference as people say it: "in 3 days", "in 59 min 58 s", "12 s ago". */
  function relative(ms) {
    const text = duration(Math.abs(ms));
    if (text === 'now') {
      return text;
    }
    return ms > 0 ? 'in ' + text : text + ' ago';
  }

  function duration(ms) {
    const seconds = Math.round(ms / 1000);
    const units = [['day', 86400], ['h', 3600], ['min', 60], ['s', 1]];
    const parts = [];
    let rest = seconds;
    for (const [name, size] of units) {
      const count = Math.floor(rest / size);
      rest -= count * size;
      if (count > 0 && parts.length < 2) {
        parts.push(count + ' ' + (name === 'day' && count !== 1 ? 'days' : name));
      } else if (parts.length > 0) {
        break; // two units at most, and adjacent ones: "3 days 4 h", not "3 days 12 s"
      }
    }
    return parts.length === 0 ? 'now' : parts.join(' ');
  }

  /** An OpenRTB 2.6-style bid request carrying the token, unchanged, as an extended id. */
  function bidRequest(token) {
    return {
      id: 'demo-auction',
      site: { domain: location.hostname, page: location.origin + '/' },
      imp: [{ id: '1', banner: { w: 300, h: 250 } }],
      user: { ext: { eids: [{ source: 'veil', uids: [{ id: token, atype: 3 }] }] } },
    };
  }

  async function postJson(path, body) {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: await response.json() };
  }

  whenReady(() => {
    $('login-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      $('login-error').textContent = '';
      $('login').disabled = true;
      try {
        const answer = await postJson('/login', { email: $('email').value });
        if (answer.json.identity) {
          // What the request describes: the server generated the token; the SDK takes it from here.
          window.__veil.init(Object.assign({}, sdkOptions, { identity: answer.json.identity }));
        } else if (answer.json.optout) {
          $('login-error').textContent = 'This user opted out: no advertising token.';
        } else {
          $('login-error').textContent = answer.json.error || 'Login failed.';
        }
      } catch (e) {
        $('login-error').textContent = 'Login failed: ' + e.message;
      } finally {
        $('login').disabled = false;
      }
    });

    $('logout').addEventListener('click', () => window.__veil.disconnect());

    $('send-bid').addEventListener('click', async () => {
      const token = window.__veil.getAdvertisingToken();
      const answer = await postJson('/bid', bidRequest(token));
      const received = answer.json.received_token;
      const result = $('bid-result');
      result.dataset.match = String(received === token);
      result.dataset.decryption = answer.json.decryption || '';
      const decrypted = answer.json.decrypted;
      if (received !== token) {
        result.textContent = 'The bidder answered: ' + (answer.json.error || 'a different token');
      } else if (decrypted) {
        result.textContent = 'The bidder received the token unchanged (' + received.length + ' characters), '
          + 'decrypted it with its own key and bid ' + answer.json.bid_price_cpm + ' CPM. It read:';
        $('decrypted-advertising-id').textContent = decrypted.advertising_id;
        $('decrypted-site').textContent = 'site ' + decrypted.site_id + ' (the publisher that generated it)';
        $('decrypted-identity-type').textContent = decrypted.identity_type.toLowerCase();
        showTime($('decrypted-established'), decrypted.established);
        showTime($('decrypted-expires'), decrypted.expires);
      } else {
        result.textContent = 'The bidder received the token unchanged but could not decrypt it ('
          + answer.json.decryption + ': ' + answer.json.reason + '), so it did not bid.';
      }
      $('bid-decrypted').hidden = !decrypted;
    });
  });
})();
