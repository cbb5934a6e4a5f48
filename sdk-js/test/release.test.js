'use strict';
// A versioned file never changes: /static/veil-sdk-<VERSION>.js is cached for a year as immutable,
// and pages pin it with Subresource Integrity. releases.json holds the SRI hash of each release;
// the script must match the entry of its VERSION, so a change to it needs a new VERSION.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { VERSION } = require('../veil-sdk.js');

test('the script is the release its VERSION names (releases.json): a change needs a new VERSION', () => {
  const releases = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'releases.json'), 'utf8'));
  const bytes = fs.readFileSync(path.join(__dirname, '..', 'veil-sdk.js'));
  const integrity = 'sha384-' + crypto.createHash('sha384').update(bytes).digest('base64');
  assert.equal(releases[VERSION], integrity, 'veil-sdk.js is not release ' + VERSION + ' as releases.json records'
    + ' it. Once a version has shipped, its file never changes: bump VERSION (veil-sdk.js and package.json)'
    + ' and add "<new version>": "' + integrity + '". Only a version that has not shipped yet may have its'
    + ' hash replaced.');
});

test('the READMEs name this release where they show a pinned path', () => {
  const sdkReadme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const pins = [...sdkReadme.matchAll(/veil-sdk-(\d[^/\s"]*)\.js/g)].map((m) => m[1]);
  assert.ok(pins.length > 0);
  assert.deepEqual([...new Set(pins)], [VERSION]);
  const guide = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'browser-sdk.md'), 'utf8');
  assert.match(guide, new RegExp('currently\\s+' + VERSION.replace(/\./g, '\\.') + '\\)'));
  const guidePins = [...guide.matchAll(/veil-sdk-(\d[^/\s"]*?)\.(?:js|tgz)/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(guidePins)], [VERSION]);
});

test('the package carries the licence: package.json names it, LICENSE is the repository\'s', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  assert.equal(pkg.license, 'Apache-2.0');
  assert.ok(pkg.files.includes('LICENSE'), 'package.json "files" must list LICENSE');
  const own = fs.readFileSync(path.join(__dirname, '..', 'LICENSE'), 'utf8');
  const root = fs.readFileSync(path.join(__dirname, '..', '..', 'LICENSE'), 'utf8');
  assert.equal(own, root, 'sdk-js/LICENSE must be a copy of the repository\'s LICENSE (npm packs no symlink)');
});
