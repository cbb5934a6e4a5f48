// Type definitions for @veil/sdk (the browser SDK, global `__veil`).
// Loading veil-sdk.js (a <script> tag or an import for its side effect) defines `window.__veil`.

/** The body of a generate or refresh answer of the Veil API; times are epoch milliseconds. */
export interface Identity {
  /** Opaque; pass it unchanged to bidders. */
  readonly advertising_token: string;
  /** Opaque; only the SDK uses it. */
  readonly refresh_token: string;
  /** When the advertising token expires. */
  readonly identity_expires: number;
  /** When the SDK starts refreshing. */
  readonly refresh_from: number;
  /** When the refresh token expires: the identity ends unless refreshed before. */
  readonly refresh_expires: number;
}

export type EventTypeName =
  | 'SdkLoaded'
  | 'InitCompleted'
  | 'IdentityUpdated'
  | 'OptedOut'
  | 'Expired'
  | 'LoggedOut';

/**
 * Why the state changed:
 * - `established`: init() took an identity (given or stored);
 * - `no_identity`: init() found none: the user must log in;
 * - `refreshed`: this page refreshed the identity;
 * - `adopted`: another tab (or subdomain, in cookie mode) refreshed, logged in or replaced it;
 * - `optout`: the user opted out; the identity is gone;
 * - `expired`: `refresh_expires` passed before a refresh succeeded;
 * - `refused`: the server refused the refresh token (invalid or expired); the identity is gone;
 * - `logout`: disconnect() was called here or the identity was removed in another tab.
 */
export type IdentityStatus =
  | 'established'
  | 'no_identity'
  | 'refreshed'
  | 'adopted'
  | 'optout'
  | 'expired'
  | 'refused'
  | 'logout';

/** The state after an event. Frozen. */
export interface VeilEventPayload {
  /** The current advertising token; undefined when there is none or it has expired. */
  readonly advertisingToken: string | undefined;
  /** The current identity, or null. */
  readonly identity: Identity | null;
  readonly status: IdentityStatus;
}

/** `SdkLoaded` comes with an empty payload; every other event with the state. */
export type VeilCallback = (
  eventType: EventTypeName,
  payload: VeilEventPayload | Record<string, never>,
) => void;

export interface InitOptions {
  /** The body of the generate answer your server obtained at login; omit it to use the stored one. */
  identity?: Identity | null;
  /**
   * The Veil API, e.g. `https://veil.example.com`: an absolute http(s) URL without query, fragment
   * or credentials (a trailing `/` is dropped). Default: the origin the script was loaded from.
   */
  baseUrl?: string;
  /**
   * Milliseconds between attempts after a failed refresh; default 5000, at least 1000. A refresh
   * request unanswered after 4 retry periods (at most 30 s) counts as failed.
   */
  refreshRetryPeriod?: number;
  /** Where the identity is kept across reloads and shared with other tabs; default `localStorage`. */
  storage?: 'localStorage' | 'cookie';
  /** Cookie mode: a parent domain to share the identity with subdomains, e.g. `example.com`. */
  cookieDomain?: string;
  /** Cookie mode: the cookie's path, starting with `/`; default `/`. */
  cookiePath?: string;
  /**
   * Called with the events from this init on (InitCompleted first; with a given identity already
   * past `refresh_expires`: InitCompleted `no_identity`, then Expired).
   */
  callback?: VeilCallback;
}

/** The queue of callbacks; `push` registers them (also before the script has loaded). */
export interface VeilCallbacks extends Array<VeilCallback> {
  push(...callbacks: VeilCallback[]): number;
}

export interface Veil {
  /** The SDK version, e.g. `0.2.0`. */
  readonly version: string;
  readonly EventType: { readonly [K in EventTypeName]: K };
  readonly callbacks: VeilCallbacks;
  /** Takes the identity and starts keeping it; may be called again (e.g. after a new login). */
  init(options: InitOptions): void;
  /** The advertising token for bid requests, or undefined when there is none or it has expired. */
  getAdvertisingToken(): string | undefined;
  /**
   * Settles after init: resolves with the token; rejects when the user must log in, or when the
   * token has expired and the next refresh attempt fails (the SDK keeps retrying; ask again later).
   */
  getAdvertisingTokenAsync(): Promise<string>;
  /** True when there is no identity; undefined before init. */
  isLoginRequired(): boolean | undefined;
  /**
   * Logout: forgets the identity here and in storage (cookie included), reports LoggedOut. Before
   * init (a logout page), clears localStorage and every identity cookie the page sees, with no event.
   */
  disconnect(): void;
  /** Stops timers, requests and listeners; the page may call init again later. */
  abort(): void;
}

/**
 * What a page may put in `window.__veil` before the script has loaded: a queue of callbacks. The
 * script keeps this object, adds the SDK to it and calls each queued callback with SdkLoaded.
 * Callbacks run only from then on, so inside one `window.__veil` is the SDK (`'init' in veil`).
 */
export interface VeilStub {
  callbacks: VeilCallback[];
}

declare global {
  interface Window {
    /** Undefined until the page's queue or the script defines it. */
    __veil: Veil | VeilStub | undefined;
  }
  // eslint-disable-next-line no-var
  var __veil: Veil | VeilStub | undefined;
}
