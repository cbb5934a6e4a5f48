// What the README's TypeScript snippets take from the publisher's page itself; ReadmeTypeScriptTest
// compiles each snippet with this file and the SDK's types (sdk-js/veil-sdk.d.ts).

/** The body of the generate answer the page's server obtained at login; undefined on later pages. */
declare const identityFromMyServer: import('../../sdk-js/veil-sdk').Identity | undefined;

/** Hands the advertising token to the page's bid requests. */
declare function setBidderToken(advertisingToken: string): void;

/** Stops sending a token in bid requests. */
declare function clearBidderToken(): void;
