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
    InitCompleted: 'SDK ready.',
    IdentityUpdated: 'Token updated.',
    OptedOut: 'You opted out: your token was removed and no new one will be issued.',
    Expired: 'Your token expired: log in again.',
    LoggedOut: 'You are logged out.',
  };

  function onVeilEvent(eventType, payload) {
    logEvent(eventType, payload);
    if (eventType === 'SdkLoaded') {
      $('login').disabled = false;
      window.__veil.init(sdkOptions); // takes a stored identity (a reload, another tab) if there is one
      return;
    }
    $('status').textContent = MESSAGES[eventType] || eventType;
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
    $('bid-request').textContent = JSON.stringify(bidRequest(payload.advertisingToken), null, 2);
    $('bid-result').textContent = '';
  }

  function showTime(element, epochMs) {
    element.dataset.ms = String(epochMs);
    element.textContent = new Date(epochMs).toLocaleString() + ' (in ' + Math.round((epochMs - Date.now()) / 1000) + ' s)';
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
      result.textContent = received === token
        ? 'The bidder received the token unchanged (' + received.length + ' characters) and bid '
          + answer.json.bid_price_cpm + ' CPM.'
        : 'The bidder answered: ' + (answer.json.error || 'a different token');
    });
  });
})();
