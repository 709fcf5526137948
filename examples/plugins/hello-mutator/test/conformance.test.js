'use strict';
// Peagen's Mutator conformance suite, run on this plugin's mutator: `npm test`.
const { describeMutatorConformance } = require('peagen/conformance');
const { mutators } = require('..');

describeMutatorConformance('hello-mutator', () => mutators[0]);
