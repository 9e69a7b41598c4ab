// jsdom lacks TextEncoder/TextDecoder, which react-router uses; Node's are the same API.
const { TextEncoder, TextDecoder } = require('node:util');
Object.assign(globalThis, { TextEncoder, TextDecoder });
