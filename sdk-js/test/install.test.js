'use strict';
// Loading the script: the global, the callbacks queue of async loading, and the rules the file
// itself must follow (no eval, one version).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { install, VERSION, EventType } = require('../veil-sdk.js');
const { FakeBrowser, identityAt } = require('./fake-browser.js');

function fakeWindow() {
  const browser = new FakeBrowser();
  const tab = browser.openTab();
  return { browser, tab, win: tab.window };
}

test('install defines __veil with the whole API', () => {
  const { win, tab } = fakeWindow();
  const veil = install(win, tab.env);
  assert.equal(win.__veil, veil);
  for (const name of ['init', 'getAdvertisingToken', 'getAdvertisingTokenAsync', 'isLoginRequired', 'disconnect', 'abort']) {
    assert.equal(typeof veil[name], 'function', name);
  }
  assert.equal(veil.version, VERSION);
  assert.deepEqual(veil.EventType, EventType);
  assert.ok(Array.isArray(veil.callbacks));
});

test('callbacks queued before the script loaded get SdkLoaded and can init', () => {
  const { win, tab, browser } = fakeWindow();
  const identity = identityAt(browser.clock.now());
  const seen = [];
  // What the page runs before the (async) script arrives:
  win.__veil = win.__veil || { callbacks: [] };
  const stub = win.__veil;
  win.__veil.callbacks.push((type, payload) => {
    seen.push(type);
    if (type === 'SdkLoaded') {
      win.__veil.init({ identity });
    }
    if (type === 'InitCompleted') {
      seen.push(payload.advertisingToken);
    }
  });
  install(win, tab.env);
  assert.equal(win.__veil, stub, 'the page\'s object is kept');
  assert.deepEqual(seen, ['SdkLoaded', 'InitCompleted', identity.advertising_token]);
});

test('callbacks pushed after init get SdkLoaded and the current state at once', () => {
  const { win, tab, browser } = fakeWindow();
  const veil = install(win, tab.env);
  const identity = identityAt(browser.clock.now());
  veil.init({ identity });
  const seen = [];
  const length = veil.callbacks.push((type, payload) => seen.push([type, payload.advertisingToken]));
  assert.deepEqual(seen, [['SdkLoaded', undefined], ['InitCompleted', identity.advertising_token]]);
  assert.equal(length, veil.callbacks.length);
});

test('a second copy of the script leaves the first in place', () => {
  const { win, tab } = fakeWindow();
  const first = install(win, tab.env);
  assert.equal(install(win, tab.env), first);
  assert.equal(win.__veil, first);
});

test('the script uses no eval, no Function constructor and no string timers (strict CSP)', () => {
  const source = fs.readFileSync(path.join(__dirname, '..', 'veil-sdk.js'), 'utf8');
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  assert.doesNotMatch(code, /\beval\s*\(/);
  assert.doesNotMatch(code, /new\s+Function\b|\bFunction\s*\(/);
  assert.doesNotMatch(code, /set(Timeout|Interval)\(\s*['"`]/);
  assert.doesNotMatch(code, /innerHTML|document\.write|insertAdjacentHTML/);
  assert.doesNotMatch(code, /\brequire\s*\(|\bimport\b/, 'no dependencies');
});

test('package.json names the file, its types and the same version', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  assert.equal(pkg.version, VERSION);
  assert.equal(pkg.main, 'veil-sdk.js');
  assert.equal(pkg.types, 'veil-sdk.d.ts');
  assert.deepEqual(pkg.dependencies || {}, {});
  const types = fs.readFileSync(path.join(__dirname, '..', pkg.types), 'utf8');
  for (const name of Object.keys(EventType)) {
    assert.match(types, new RegExp("'" + name + "'"), name + ' is typed');
  }
});
