// The Prebid.js bundle of Veil's browser test: Prebid's core, its user-id module and the UID2
// user-id submodule, nothing else. The test page registers its own bid adapter.
import pbjs from 'prebid.js';
import 'prebid.js/modules/userId';
import 'prebid.js/modules/uid2IdSystem';

pbjs.processQueue();
